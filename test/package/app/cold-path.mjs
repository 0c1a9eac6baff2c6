// Run by dist-cold-path.test.ts in the app that installed the packed tarball, under module hooks that record every
// module loaded: a fresh process signs in once and reads its session, as a browser would. Prints the statuses.
//   argv: credentials (a credentials-only configuration) | oauth (credentials and GitHub, signing in with GitHub) |
//   page (credentials: only the sign-in page is asked for)
import { AuthInit, Credentials } from 'authchart';

const mode = process.argv[2];
const ORIGIN = 'http://localhost:3000';
const providers = [Credentials({ credentials: { username: {}, password: {} }, authorize: async () => ({ id: 'u1', name: 'Ada', email: 'ada@example.test' }) })];
if (mode === 'oauth') providers.push((await import('authchart/providers')).GitHub({ clientId: 'id', clientSecret: 'secret' }));
const { handlers } = AuthInit({ secret: 'cold-path-secret-0123456789-0123456789', trustHost: true, basePath: '/auth', providers, logger: { error: (e) => process.stderr.write(`${String(e)}\n`), warn() {} } });

const jar = new Map();
async function send(path, form) {
  const headers = new Headers({ cookie: [...jar].map(([k, v]) => `${k}=${v}`).join('; ') });
  if (form) headers.set('content-type', 'application/x-www-form-urlencoded');
  const res = await handlers.GET(new Request(`${ORIGIN}${path}`, form ? { method: 'POST', body: new URLSearchParams(form), headers } : { headers }));
  for (const line of res.headers.getSetCookie()) {
    const [pair] = line.split(';');
    jar.set(pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1));
  }
  return res;
}

if (mode === 'page') {
  const page = await send('/auth/signin');
  process.stdout.write(JSON.stringify({ signIn: page.status, location: null, user: (await page.text()).includes('name="username"') ? 'form' : null }));
  process.exit(0);
}

const { csrfToken } = await (await send('/auth/csrf')).json();
const signIn = mode === 'oauth'
  ? await send('/auth/signin/github', { csrfToken, callbackUrl: `${ORIGIN}/` })
  : await send('/auth/callback/credentials', { csrfToken, username: 'ada', password: 'x', callbackUrl: `${ORIGIN}/` });
const session = await (await send('/auth/session')).json();
process.stdout.write(JSON.stringify({ signIn: signIn.status, location: signIn.headers.get('location'), user: session?.user?.name ?? null }));
