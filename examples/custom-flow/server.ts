// The custom flow served: an h3 app with authchart at /auth and the EmailCode provider, on an in-memory PGlite.
// `npx tsx examples/custom-flow/server.ts` runs it offline; the codes it "sends" are printed and kept in memory.
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { H3, serve } from 'h3';
import { createAuthHandler, getSession, type Adapter, type AnyProvider, type AuthConfig } from 'authchart';
import { PostgresAdapter } from 'authchart/adapters/postgres';
import { EmailCode, type EmailCodeOptions } from './provider.js';

/** A code as the example "delivers" it: kept in memory (a real app mails it, or posts it to a webhook). */
export interface SentCode {
  email: string;
  code: string;
}

export interface EmailCodeAppOptions {
  adapter: Adapter;
  /** Replaces the in-memory delivery (tests make it fail). */
  send?: EmailCodeOptions['send'];
  /** Replaces the providers (default: one EmailCode provider). */
  providers?: AnyProvider[];
  secret?: string;
  logger?: AuthConfig['logger'];
}

const escape = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
const page = (body: string) =>
  new Response(`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>EmailCode example</title></head><body>${body}</body></html>`, {
    headers: { 'content-type': 'text/html; charset=utf-8' },
  });

/**
 * The example app. `outbox` holds every code sent, newest last.
 *
 * @example
 * const { app, outbox } = createEmailCodeApp({ adapter: PostgresAdapter(await PGlite.create()) }); serve(app, { port: 3000 })
 */
export function createEmailCodeApp(options: EmailCodeAppOptions): { app: H3; config: AuthConfig; outbox: SentCode[] } {
  const outbox: SentCode[] = [];
  const send = options.send ?? ((sent: SentCode) => void outbox.push(sent));
  const config: AuthConfig = {
    adapter: options.adapter,
    providers: options.providers ?? [EmailCode({ send })],
    secret: options.secret ?? process.env.AUTH_SECRET ?? randomBytes(32).toString('base64url'),
    trustHost: true,
    ...(options.logger ? { logger: options.logger } : {}),
  };
  const app = new H3();
  app.all('/auth/**', createAuthHandler(config));
  app.get('/', async (event) => {
    const session = await getSession(event, config);
    if (session?.user) return page(`<p>Signed in as ${escape(session.user.email ?? '?')}.</p><p><a href="/auth/signout">Sign out</a></p>`);
    return page('<p>Not signed in.</p><p><a href="/auth/signin">Sign in with an e-mail code</a></p>');
  });
  return { app, config, outbox };
}

async function main(): Promise<void> {
  const { PGlite } = await import('@electric-sql/pglite');
  const adapter = PostgresAdapter(await PGlite.create());
  await adapter.migrate();
  const port = Number(process.env.PORT ?? 3000);
  const { app } = createEmailCodeApp({
    adapter,
    send: ({ email, code }) => console.log(`code for ${email}: ${code}`),
  });
  const server = serve(app, { port, hostname: process.env.HOST ?? 'localhost', silent: true });
  await server.ready();
  console.log(`EmailCode example on http://localhost:${port} (codes are printed here)`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  main().catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
