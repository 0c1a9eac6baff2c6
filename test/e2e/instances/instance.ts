// One app instance as a separate process, for the many-instances test: authchart over node:http on 127.0.0.1,
// database sessions in PostgreSQL (DATABASE_URL, schema SCHEMA), throttle counters in Redis (REDIS_URL, prefix
// REDIS_PREFIX). It reports on stdout, one JSON object a line: its port, each authorize call, each mail "sent". With
// OIDC_ISSUER (and OIDC_CLIENT_ID, OIDC_CLIENT_SECRET) it signs in through that OpenID provider too. Passkeys (WebAuthn)
// keep their authenticators and spent challenges in the same database.
import { createServer } from 'node:http';
import pg from 'pg';
import { Redis } from 'ioredis';
import { PostgresAdapter } from '../../../src/adapters/postgres/index.js';
import { redisThrottleStore } from '../../../src/core/throttle/store.js';
import { ServerAuth } from '../../../src/http/integrations/node.js';
import { Credentials } from '../../../src/providers/credentials.js';
import { Email } from '../../../src/providers/email.js';
import { OIDC } from '../../../src/providers/oauth.js';
import { Passkey } from '../../../src/providers/webauthn.js';

const say = (message: Record<string, unknown>) => process.stdout.write(`${JSON.stringify(message)}\n`);
const env = process.env;
const pool = new pg.Pool({ connectionString: env.DATABASE_URL, options: `-c search_path=${env.SCHEMA}`, max: 4 });
const redis = new Redis(env.REDIS_URL!, { enableOfflineQueue: false, maxRetriesPerRequest: 1 });
redis.on('error', () => {});

const middleware = ServerAuth({
  secret: env.AUTH_SECRET,
  trustHost: true,
  adapter: PostgresAdapter(pool),
  session: { strategy: 'database' },
  experimental: { enableWebAuthn: true },
  // The session names its user, so a test can tell which user two sign-ins reached.
  callbacks: { session: ({ session, user }) => ({ ...session, user: { ...session.user, id: user?.id } }) },
  logger: { error: () => {}, warn: () => {} },
  throttle: { enabled: true, store: redisThrottleStore(redis, { prefix: env.REDIS_PREFIX }), rules: { credentialsAccount: { points: 6, duration: 600 } } },
  providers: [
    Credentials({
      credentials: { username: {}, password: { type: 'password' } },
      authorize: (c) => {
        say({ authorize: c.username });
        return c.password === 'right' ? { id: String(c.username), email: `${String(c.username)}@example.test` } : null;
      },
    }),
    Passkey(),
    Email({ confirm: false, sendVerificationRequest: ({ identifier, url }) => void say({ mail: identifier, url }) }),
    ...(env.OIDC_ISSUER
      ? [OIDC({ id: 'oidc', name: 'Test OP', issuer: env.OIDC_ISSUER, clientId: env.OIDC_CLIENT_ID!, clientSecret: env.OIDC_CLIENT_SECRET!, checks: ['pkce', 'state', 'nonce'] })]
      : []),
  ],
});

const server = createServer((req, res) => void middleware(req, res, () => {
  res.statusCode = 404;
  res.end();
}));
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const address = server.address();
say({ port: typeof address === 'object' && address ? address.port : 0 });
process.on('SIGTERM', () => {
  server.close();
  server.closeAllConnections();
  void Promise.allSettled([pool.end(), redis.quit()]).then(() => process.exit(0));
});
