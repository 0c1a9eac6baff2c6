// Flow runs as OpenTelemetry spans, recorded by the SDK's in-memory exporter over whole sign-ins (credentials, a
// magic link, a real OpenID Provider, a passkey, a second factor, a refused password): the span tree and its
// attributes, and a scan of every span name, attribute, event and status for personal data.
import { trace } from '@opentelemetry/api';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SPAN_ATTRIBUTES } from '../../src/flows/runtime/spans.js';
import { Credentials } from '../../src/providers/credentials.js';
import { OIDC } from '../../src/providers/oauth.js';
import { Passkey } from '../../src/providers/webauthn.js';
import { getAccessToken } from '../../src/http/integrations/access-token.js';
import { ORIGIN, TEST_SECRET, testAuth, type TestAuth } from '../support/auth-app.js';
import { activeTotp, codeNow, registeredPasskey, setsSession as setsSessionAfterFactor } from '../support/factors.js';
import { memoryOutbox, signInByLink } from '../support/magic-link.js';
import { PGlite } from '@electric-sql/pglite';
import { PostgresAdapter, type PostgresAdapterInstance } from '../../src/adapters/postgres/index.js';
import { callbackOf, setsSession, signInThrough } from './oauth/harness.js';
import { startOidcProvider, type OidcProviderHarness } from './peers/oidc.js';

// Its own embedded database, given more time to start than the shared helper allows: WASM compiles slowly on a
// loaded machine.
let db: PGlite;
const pg = {} as { adapter: PostgresAdapterInstance };
const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });

const PASSWORD = 'correct horse battery staple';
const USERS = {
  plain: { id: 'trace-user-plain-7f3a', email: 'plain.person@example.com' },
  guarded: { id: 'trace-user-2fa-91bc', email: 'guarded.person@example.com' },
  passkey: { id: 'trace-user-passkey-5d2e', email: 'passkey.person@example.com' },
};
/** Every value of the runs that would identify someone or let them in: none may reach a span. */
const secrets: string[] = [PASSWORD, ...Object.values(USERS).flatMap((u) => [u.id, u.email])];

let op: OidcProviderHarness;
let spans: ReadableSpan[] = [];

function credentials() {
  return Credentials({
    credentials: { email: {}, password: {} },
    authorize: (c) => {
      const user = Object.values(USERS).find((u) => u.email === c.email);
      return user && c.password === PASSWORD ? user : null;
    },
  });
}

async function passwordSignIn(t: TestAuth, email: string, password = PASSWORD) {
  const client = t.newClient();
  const csrfToken = await t.csrfToken(client);
  const res = await client.post('/auth/callback/credentials', { csrfToken, email, password });
  return { client, csrfToken, res };
}

beforeAll(async () => {
  db = await PGlite.create();
  pg.adapter = PostgresAdapter(db);
  await pg.adapter.migrate();
  trace.setGlobalTracerProvider(provider);
  op = await startOidcProvider({ redirectUris: [callbackOf('oidc')] });
  secrets.push(...Object.values(op.accounts).flatMap((a) => [a.email!, a.name!]));
  await pg.adapter.createUser({ ...USERS.plain, emailVerified: null });
  await pg.adapter.createUser({ ...USERS.guarded, emailVerified: null });
  await pg.adapter.createUser({ ...USERS.passkey, emailVerified: null });
  const key = await activeTotp(pg.adapter, USERS.guarded.id);
  const device = await registeredPasskey(pg.adapter, USERS.passkey.id);
  const outbox = memoryOutbox();

  const config = {
    adapter: pg.adapter,
    session: { strategy: 'jwt' as const },
    experimental: { enableWebAuthn: true },
    providers: [credentials(), outbox.provider, OIDC({ id: 'oidc', name: 'OP', issuer: op.issuer, clientId: op.clientId, clientSecret: op.clientSecret, checks: ['pkce', 'state', 'nonce'] }), Passkey()],
  };
  const app = testAuth(config);
  expect((await passwordSignIn(app, USERS.plain.email)).res.status).toBe(302);
  expect((await passwordSignIn(app, USERS.plain.email, 'wrong password')).res.status).toBe(302);
  const link = await signInByLink(app, outbox, 'link.person@example.com', app.newClient());
  expect(link.status).toBe(302);
  secrets.push('link.person@example.com', new URL(outbox.linkFor('link.person@example.com')).searchParams.get('token')!);
  const alice = app.newClient();
  const { callback } = await signInThrough(app, op, 'oidc', 'alice', { client: alice });
  expect(setsSession(callback)).toBe(true);
  // The provider's access token for the app, through the token refresh machine (fresh: no refresh needed).
  const accessToken = await getAccessToken(new Request(`${ORIGIN}/api`, { headers: { cookie: alice.cookies.header(`${ORIGIN}/`) } }), { secret: TEST_SECRET, trustHost: true, ...config }, 'oidc');
  expect(accessToken).toEqual(expect.any(String));
  secrets.push(accessToken!);
  const browser = app.newClient();
  const asked = (await (await browser.get('/auth/webauthn-options/passkey?action=authenticate')).json()) as { options: { challenge: string } };
  const assertion = device.authenticate(asked.options as never);
  const byPasskey = await browser.post('/auth/callback/passkey', { action: 'authenticate', data: JSON.stringify(assertion), csrfToken: await app.csrfToken(browser) });
  expect(byPasskey.status).toBe(302);
  expect(setsSession(byPasskey)).toBe(true);
  // The credential's id and everything the authenticator signed, as the browser sent them.
  secrets.push(device.id, asked.options.challenge, assertion.response.signature, assertion.response.clientDataJSON, assertion.response.authenticatorData);

  const guarded = testAuth({ adapter: pg.adapter, session: { strategy: 'jwt' }, secondFactor: {}, providers: [credentials()] });
  const { client, csrfToken, res } = await passwordSignIn(guarded, USERS.guarded.email);
  expect(res.status).toBe(200);
  const code = codeNow(key);
  secrets.push(code);
  const passed = await client.post('/auth/second-factor', { csrfToken, code });
  expect(passed.status).toBe(302);
  expect(setsSessionAfterFactor(passed)).toBe(true);
  for (const cookie of [...callback.setCookie, ...byPasskey.setCookie, ...passed.setCookie]) {
    const value = cookie.split(';')[0]!.split('=').slice(1).join('=');
    if (value) secrets.push(value); // cleared cookies have none
  }
  await provider.forceFlush();
  spans = exporter.getFinishedSpans();
}, 180_000);

afterAll(async () => {
  await db?.close();
  trace.disable();
  await provider.shutdown();
  await op?.stop();
});

const flows = () => spans.filter((s) => s.name === 'authchart.flow');
const childrenOf = (parent: ReadableSpan) => spans.filter((s) => s.parentSpanContext?.spanId === parent.spanContext().spanId);

describe('flow runs as spans', () => {
  it('makes each run a span with its provider, machine, version and outcome', () => {
    const summary = flows().map((s) => [s.attributes[SPAN_ATTRIBUTES.provider], s.attributes[SPAN_ATTRIBUTES.machine], s.attributes[SPAN_ATTRIBUTES.outcome]]);
    expect(summary).toEqual([
      ['credentials', 'credentials', 'signedIn'],
      ['credentials', 'credentials', 'failed'],
      // The e-mail flow ends at sending the link; opening it is a run of its own.
      ['email', 'email', 'redirected'],
      ['email', 'email', 'signedIn'],
      ['oidc', 'oauth', 'paused'],
      ['oidc', 'oauth', 'signedIn'],
      // getAccessToken: the token refresh machine's run, a flow of its own.
      ['oidc', 'tokens', 'done'],
      // A passkey: the options request pauses with the challenge; the assertion's run signs in.
      ['passkey', 'webauthn', 'paused'],
      ['passkey', 'webauthn', 'signedIn'],
      // The password passed, the sign-in waits for the code; the code's run is the second-factor machine's.
      ['credentials', 'credentials', 'paused'],
      ['credentials', 'second-factor', 'signedIn'],
    ]);
    // Provider flows and the second factor carry a version (their flow cookies do); a machine that runs on its own has none.
    for (const span of flows()) {
      const own = span.attributes[SPAN_ATTRIBUTES.machine] === 'tokens';
      expect(span.attributes[SPAN_ATTRIBUTES.version], span.attributes[SPAN_ATTRIBUTES.provider] as string).toEqual(own ? undefined : expect.any(Number));
    }
    const tokens = flows().find((s) => s.attributes[SPAN_ATTRIBUTES.machine] === 'tokens')!;
    expect(childrenOf(tokens).some((s) => s.name.startsWith('authchart.actor '))).toBe(true);
    // Its states as events, the last one where it settled: the token was fresh.
    expect(tokens.events.map((e) => e.attributes?.[SPAN_ATTRIBUTES.state]).at(-1)).toBe('fresh');
    const refused = flows().find((s) => s.attributes[SPAN_ATTRIBUTES.outcome] === 'failed')!;
    expect(refused.attributes[SPAN_ATTRIBUTES.errorType]).toBe('CredentialsSignin');
    expect(refused.status.code).toBe(2); // SpanStatusCode.ERROR
  });

  it('records each state entered as an event, each invoked actor as a child span, and the tail as a span of its own', () => {
    const callback = flows().find((s) => s.attributes[SPAN_ATTRIBUTES.provider] === 'oidc' && s.attributes[SPAN_ATTRIBUTES.outcome] === 'signedIn')!;
    const states = callback.events.filter((e) => e.name === 'authchart.state').map((e) => e.attributes?.[SPAN_ATTRIBUTES.state]);
    expect(states.length).toBeGreaterThan(2);
    expect(states.at(-1)).toBe('authenticated');
    const children = childrenOf(callback);
    const actors = children.filter((s) => s.name.startsWith('authchart.actor '));
    expect(actors.length).toBeGreaterThan(0);
    for (const actor of actors) expect(actor.attributes[SPAN_ATTRIBUTES.outcome]).toBe('done');
    const tail = children.find((s) => s.name === 'authchart.signin')!;
    expect(tail.attributes[SPAN_ATTRIBUTES.machine]).toBe('signin');
    expect(tail.attributes[SPAN_ATTRIBUTES.outcome]).toBe('done');
    expect(tail.events.length).toBeGreaterThan(0);
    expect(childrenOf(tail).some((s) => s.name.startsWith('authchart.actor '))).toBe(true);
    // Every first factor that signs someone in (credentials, a link, the OP, a passkey) goes through the tail, each
    // under its own span, with the calls it made as actor spans.
    const signedIn = flows().filter((s) => s.attributes[SPAN_ATTRIBUTES.outcome] === 'signedIn' && s.attributes[SPAN_ATTRIBUTES.machine] !== 'second-factor');
    expect(signedIn.map((s) => s.attributes[SPAN_ATTRIBUTES.provider])).toEqual(['credentials', 'email', 'oidc', 'passkey']);
    for (const run of signedIn) {
      const own = childrenOf(run);
      expect(own.filter((s) => s.name === 'authchart.signin'), String(run.attributes[SPAN_ATTRIBUTES.provider])).toHaveLength(1);
      expect(own.some((s) => s.name.startsWith('authchart.actor ')), String(run.attributes[SPAN_ATTRIBUTES.provider])).toBe(true);
    }
  });

  it('gives the second factor a span of its own, in the paused sign-in and in the run that passes it', () => {
    const factorSpans = spans.filter((s) => s.name === 'authchart.second_factor');
    expect(factorSpans.map((s) => s.attributes[SPAN_ATTRIBUTES.outcome])).toEqual(['paused', 'done']);
    const passing = flows().find((s) => s.attributes[SPAN_ATTRIBUTES.outcome] === 'signedIn' && childrenOf(s).some((c) => c.name === 'authchart.second_factor'))!;
    expect(passing.attributes[SPAN_ATTRIBUTES.provider]).toBe('credentials');
  });

  it('puts no personal data in any span: only the documented attributes, and no value from a request', () => {
    const allowed = new Set<string>(Object.values(SPAN_ATTRIBUTES));
    const texts: string[] = [];
    let attributes = 0;
    for (const span of spans) {
      texts.push(span.name, span.status.message ?? '');
      for (const [key, value] of Object.entries(span.attributes)) {
        expect(allowed, `${span.name}: ${key}`).toContain(key);
        texts.push(String(value));
        attributes += 1;
      }
      for (const event of span.events) {
        texts.push(event.name);
        for (const [key, value] of Object.entries(event.attributes ?? {})) {
          expect(allowed, `${span.name} event: ${key}`).toContain(key);
          texts.push(String(value));
          attributes += 1;
        }
      }
    }
    expect(spans.length).toBeGreaterThan(20);
    expect(attributes).toBeGreaterThan(100);
    expect(secrets.filter((s) => s.length < 4)).toEqual([]);
    for (const text of texts) {
      for (const secret of secrets) expect(text, 'a secret or personal value').not.toContain(secret);
      expect(text).not.toMatch(/@|eyJ|[0-9a-f]{8}-[0-9a-f]{4}-|[\w-]{32,}|\b\d{6}\b/);
    }
  });
});
