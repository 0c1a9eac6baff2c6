// A cookie-keeping browser over a loopback app, for the sign-up tests: it posts the sign-up form with its CSRF
// token, types codes, opens mailed links, and reads the session.
import type { LoopbackApp } from './loopback-app.js';

export class SignUpBrowser {
  readonly jar = new Map<string, string>();
  constructor(readonly app: LoopbackApp) {}

  get cookie(): string {
    return [...this.jar].map(([k, v]) => `${k}=${v}`).join('; ');
  }

  /** Keeps the response's cookies (a cleared one is dropped). */
  keep(res: Response): Response {
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(';', 1);
      const i = pair.indexOf('=');
      const name = pair.slice(0, i);
      const value = pair.slice(i + 1);
      if (value === '' || /max-age=0/i.test(line)) this.jar.delete(name);
      else this.jar.set(name, value);
    }
    return res;
  }

  async get(path: string, headers: Record<string, string> = {}): Promise<Response> {
    return this.keep(await this.app.fetch(path, { cookie: this.cookie, headers }));
  }

  async csrfToken(): Promise<string> {
    const res = await this.get('/auth/csrf');
    return ((await res.json()) as { csrfToken: string }).csrfToken;
  }

  /** POSTs a form (values sent as they are, JSON when one is not a string) with the CSRF token. */
  async post(path: string, fields: Record<string, unknown>, options: { json?: boolean } = {}): Promise<Response> {
    const csrfToken = await this.csrfToken();
    const json = options.json === true || Object.values(fields).some((v) => typeof v !== 'string');
    return this.keep(
      await this.app.fetch(path, {
        method: 'POST',
        cookie: this.cookie,
        headers: { 'content-type': json ? 'application/json' : 'application/x-www-form-urlencoded' },
        body: json ? JSON.stringify({ csrfToken, ...fields }) : new URLSearchParams({ csrfToken, ...(fields as Record<string, string>) }).toString(),
      }),
    );
  }

  /** The signed-in user's address, or null. */
  async sessionEmail(): Promise<string | null> {
    const res = await this.get('/auth/session');
    const body = (await res.json()) as { user?: { email?: string } } | null;
    return body?.user?.email ?? null;
  }
}

/** The six-digit code in a sign-up mail's text. */
export function codeIn(text: string): string {
  const m = /^\s*(\d{6})\s*$/m.exec(text);
  if (!m) throw new Error(`no code in: ${text}`);
  return m[1];
}
