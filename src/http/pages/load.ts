// The built-in pages load with the first page a browser asks for (sign-in, sign-out, error, check-your-email, a
// refusal): a server that only answers session checks and API calls never loads them.
let pages: Promise<typeof import('./index.js')> | undefined;

/** The pages module, loaded once (and again after a failed load). */
export function loadPages(): Promise<typeof import('./index.js')> {
  pages ??= import('./index.js').catch((err: unknown) => {
    pages = undefined;
    throw err;
  });
  return pages;
}
