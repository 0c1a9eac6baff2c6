// The app the other runtimes run, written against the published package only: credentials, e-mail (sent to an
// HTTP endpoint, the sender fake of the test) and an OpenID Provider, with a small in-memory adapter of the app's own
// (an adapter is what e-mail sign-in stores its tokens in; workers have no database here). JWT sessions.
import { AuthInit, Credentials, type Adapter, type AdapterAccount, type AdapterUser, type VerificationToken } from 'authchart';
import { Email, OIDC } from 'authchart/providers';

export interface AppOptions {
  secret: string;
  /** The app's public origin (AUTH_URL). */
  origin: string;
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** Where the e-mail sender POSTs each link as JSON. */
  mailbox: string;
}

/** A Map-backed adapter: enough for e-mail and OAuth sign-ins with JWT sessions. */
function memoryAdapter(): Adapter {
  const users = new Map<string, AdapterUser>();
  const accounts = new Map<string, AdapterAccount>();
  const tokens = new Map<string, VerificationToken>();
  let next = 0;
  const byEmail = (email: string) => [...users.values()].find((u) => u.email === email) ?? null;
  return {
    createUser: async (user) => {
      const created = { ...user, id: String(++next) } as AdapterUser;
      users.set(created.id, created);
      return created;
    },
    getUser: async (id) => users.get(id) ?? null,
    getUserByEmail: async (email) => byEmail(email),
    getUserByAccount: async ({ provider, providerAccountId }) => {
      const account = accounts.get(`${provider}:${providerAccountId}`);
      return account ? (users.get(account.userId) ?? null) : null;
    },
    updateUser: async (user) => {
      const updated = { ...users.get(user.id!)!, ...user } as AdapterUser;
      users.set(updated.id, updated);
      return updated;
    },
    linkAccount: async (account) => {
      accounts.set(`${account.provider}:${account.providerAccountId}`, account);
      return account;
    },
    createSession: async (session) => session,
    getSessionAndUser: async () => null,
    updateSession: async () => null,
    deleteSession: async () => null,
    createVerificationToken: async (token) => {
      tokens.set(`${token.identifier}:${token.token}`, token);
      return token;
    },
    useVerificationToken: async ({ identifier, token }) => {
      const found = tokens.get(`${identifier}:${token}`) ?? null;
      tokens.delete(`${identifier}:${token}`);
      return found;
    },
  };
}

/** The app's fetch handler (authchart under /auth). */
export function createApp(options: AppOptions): (request: Request) => Promise<Response> {
  const { handlers } = AuthInit({
    secret: options.secret,
    trustHost: true,
    basePath: '/auth',
    adapter: memoryAdapter(),
    session: { strategy: 'jwt' },
    providers: [
      Credentials({
        credentials: { email: { label: 'Email' }, password: { label: 'Password', type: 'password' } },
        authorize: (c) => (c.password === 'analytical-engine' ? { id: 'ada', name: 'Ada Lovelace', email: String(c.email) } : null),
      }),
      Email({
        from: 'auth@example.test',
        sendVerificationRequest: async ({ identifier, url }) => {
          const res = await fetch(options.mailbox, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ identifier, url }) });
          if (!res.ok) throw new Error(`mailbox answered ${res.status}`);
        },
      }),
      OIDC({ id: 'oidc', name: 'Company SSO', issuer: options.issuer, clientId: options.clientId, clientSecret: options.clientSecret }),
    ],
  });
  return (request) => handlers.GET(request);
}
