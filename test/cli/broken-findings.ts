// What the doctor says about fixtures/broken.config.ts, read as production: the refusals each naming what to add.
// Shared by the in-repository test (cli.test.ts) and the installed package's (installed.test.ts).
import { expect } from 'vitest';

/** A short secret, a credentials provider with no fields, GitHub without its client, an adapter short of methods, no host. */
export function expectBrokenFindings(out: string): void {
  expect(out).toMatch(/problem +A secret is shorter than 32 characters \(9\): use `npx authchart secret`/);
  expect(out).toMatch(/problem +Credentials provider "credentials" has no fields, so the built-in sign-in page draws an empty form: add `credentials: \{ email: .*\}`.*or your own page with `pages: \{ signIn: '\/login' \}`/);
  expect(out).toMatch(/problem +Provider "github" lacks a client id \(AUTH_GITHUB_ID, or `clientId`\) and a client secret \(AUTH_GITHUB_SECRET, or `clientSecret`\)/);
  expect(out).toMatch(/problem +The adapter is missing methods required by database, email: .*getUserByEmail.*createVerificationToken, useVerificationToken/);
  expect(out).toMatch(/problem +The host is not trusted: set AUTH_URL/);
}

