// A browser of one site whose instances answer at several origins (each its own port, as behind a load balancer):
// one set of cookies, sent to whichever instance a request goes to; redirects are not followed. For the tests and
// the load run that move one sign-in between instances.

/**
 * @example
 * const browser = new SiteBrowser(); await browser.post(a, '/auth/signin/email', { email }); await browser.user(b)
 */
export class SiteBrowser {
  cookies = new Map<string, string>();
  header(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }
  async fetch(origin: string, path: string, init: RequestInit = {}): Promise<Response> {
    const headers = new Headers(init.headers);
    if (this.cookies.size) headers.set('cookie', this.header());
    const res = await fetch(new URL(path, origin), { ...init, headers, redirect: 'manual' });
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(';', 1);
      const eq = pair.indexOf('=');
      const [name, value] = [pair.slice(0, eq), pair.slice(eq + 1)];
      if (/max-age=0/i.test(line) || value === '') this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    return res;
  }
  /** A CSRF token (its cookie kept), good on every instance that shares the secret. */
  async csrf(origin: string): Promise<string> {
    return ((await (await this.fetch(origin, '/auth/csrf')).json()) as { csrfToken: string }).csrfToken;
  }
  /** A form POST with a fresh CSRF token. */
  async post(origin: string, path: string, fields: Record<string, string>, headers: Record<string, string> = {}): Promise<Response> {
    const csrfToken = await this.csrf(origin);
    return this.fetch(origin, path, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers }, body: new URLSearchParams({ csrfToken, ...fields }).toString() });
  }
  async session(origin: string): Promise<{ user?: { id?: string; email?: string } } | null> {
    return (await (await this.fetch(origin, '/auth/session')).json()) as { user?: { id?: string; email?: string } } | null;
  }
  /** The signed-in user's address, or null. */
  async user(origin: string): Promise<string | null> {
    return (await this.session(origin))?.user?.email ?? null;
  }
}
