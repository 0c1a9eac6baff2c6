// The development inspector: off by default, unreachable in production, and with debug on a list of the last
// flows and a page per flow with its highlighted path, its failing state and its evidence, all escaped.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { InvalidCheck } from '../../src/core/errors.js';
import { renderInspectFlow, renderInspectList, type InspectPageContext } from '../../src/devtools/inspect-page.js';
import { credentialsMachine } from '../../src/flows/credentials/machine.js';
import { FlowLog } from '../../src/flows/runtime/log.js';
import { flowRecord, type FlowRecord } from '../../src/flows/runtime/record.js';
import { Credentials } from '../../src/providers/credentials.js';
import { offlineOAuth } from '../support/offline-oauth.js';
import { testAuth, type TestAuth } from '../support/auth-app.js';

const credentials = Credentials({
  credentials: { email: {}, password: {} },
  authorize: async (c) => {
    if (c.password === 'pw') return { id: 'u1', email: String(c.email) };
    // User-controlled text ends up in the evidence: the inspector must print it, never run it.
    if (c.password === 'crash') throw new Error(`no user <img src=x onerror="alert(1)"> for ${String(c.email)}`);
    return null;
  },
});

const acme = offlineOAuth;

async function submit(t: TestAuth, password: string, email = 'a@b.test') {
  const csrfToken = await t.csrfToken();
  return t.client.post('/auth/callback/credentials', { csrfToken, email, password });
}

function flowIds(t: TestAuth): string[] {
  return [...new Set(t.logger.debugs.filter((d) => d.message.startsWith('flow ')).map((d) => (d.metadata as FlowRecord).id))];
}

async function expectUnknownAction(t: TestAuth, path: string) {
  const res = await t.client.get(path);
  expect(res.status).toBe(400);
  expect(res.headers.get('content-type')).toContain('application/json');
  expect(await res.json()).toEqual({ error: 'UnknownAction', message: 'Bad request.' });
}

afterEach(() => {
  vi.unstubAllEnvs();
});

describe('inspector availability', () => {
  it('is off by default: every inspector URL is an unknown action', async () => {
    const t = testAuth({ providers: [credentials] });
    await submit(t, 'wrong');
    const [id] = flowIds(t);
    for (const path of ['/auth/_inspect', `/auth/_inspect/${id}`, '/auth/_inspect/mermaid.js']) await expectUnknownAction(t, path);
    expect(t.logger.errorTypes().filter((type) => type === 'UnknownAction')).toHaveLength(3);
  });

  it('is unreachable in production even with debug on', async () => {
    vi.stubEnv('NODE_ENV', 'production');
    const t = testAuth({ providers: [credentials], debug: true });
    await submit(t, 'wrong');
    const [id] = flowIds(t);
    for (const path of ['/auth/_inspect', `/auth/_inspect/${id}`, '/auth/_inspect/mermaid.js']) await expectUnknownAction(t, path);
  });

  it('closes when the process turns out to be production after the config was resolved', async () => {
    const t = testAuth({ providers: [credentials], debug: true });
    await submit(t, 'wrong');
    const [id] = flowIds(t);
    expect((await t.client.get('/auth/_inspect')).status).toBe(200);
    vi.stubEnv('NODE_ENV', 'production');
    for (const path of ['/auth/_inspect', `/auth/_inspect/${id}`, '/auth/_inspect/mermaid.js']) await expectUnknownAction(t, path);
  });

  it('opens with debug: true outside production, with a strict policy and no indexing', async () => {
    const t = testAuth({ providers: [credentials], debug: true });
    const res = await t.client.get('/auth/_inspect');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/html');
    expect(res.headers.get('cache-control')).toContain('no-store');
    expect(res.headers.get('x-robots-tag')).toBe('noindex');
    expect(res.headers.get('referrer-policy')).toBe('no-referrer');
    const policy = res.headers.get('content-security-policy') ?? '';
    expect(policy).toContain("default-src 'none'");
    expect(policy).toMatch(/script-src 'nonce-[A-Za-z0-9+/=]+'(;|$)/);
    expect(policy).toContain("frame-ancestors 'none'");
    expect(await res.text()).toContain('No flows yet');
  });
});

describe('inspector pages', () => {
  it('lists the last flows, newest first, with provider, result and duration', async () => {
    const t = testAuth({ providers: [credentials, acme], debug: true });
    await submit(t, 'pw');
    await submit(t, 'wrong');
    await t.client.post('/auth/signin/acme', { csrfToken: await t.csrfToken() });
    const [signedIn, failed, paused] = flowIds(t);
    const page = await (await t.client.get('/auth/_inspect')).text();
    const [main, folded] = page.split('<details class="quiet">');
    const rowsOf = (part: string) => part.split('<tr>').slice(1).filter((r) => !r.startsWith('<th>'));
    const rows = rowsOf(main);
    expect(rows).toHaveLength(2);
    expect(rows[0]).toContain(`href="/auth/_inspect/${failed}"`);
    expect(rows[0]).toContain('<span class="status-failed">failed</span> <span class="mono">CredentialsSignin</span>');
    expect(rows[0]).toContain('failed.credentialsSignin');
    expect(rows[1]).toContain(`href="/auth/_inspect/${signedIn}"`);
    expect(rows[1]).toContain('status-signedIn');
    // A flow that stopped at its first pause (here: sent to the provider, never back) is folded away below.
    expect(folded).toContain('1 flow that stopped at its first pause');
    const [pausedRow] = rowsOf(folded);
    expect(pausedRow).toContain(`href="/auth/_inspect/${paused}"`);
    expect(pausedRow).toContain('<td>acme</td>');
    expect(pausedRow).toContain('<span class="status-paused">paused</span>');
    for (const row of [...rows, pausedRow]) expect(row).toMatch(/<td class="num">\d+(\.\d)? ms<\/td>/);
  });

  it('keeps only the last 100 flows', async () => {
    const t = testAuth({ providers: [credentials], debug: true });
    const csrfToken = await t.csrfToken();
    for (let i = 0; i < 102; i++) await t.client.post('/auth/callback/credentials', { csrfToken, email: 'a@b.test', password: 'wrong' });
    const ids = flowIds(t);
    const page = await (await t.client.get('/auth/_inspect')).text();
    expect(page.split('<tr>').slice(2)).toHaveLength(100);
    expect(page).not.toContain(ids[0]);
    expect(page).not.toContain(ids[1]);
    expect(page).toContain(ids[2]);
    expect((await t.client.get(`/auth/_inspect/${ids[0]}`)).status).toBe(404);
  });

  it('shows one flow: its diagram with the path highlighted and the failing state marked', async () => {
    const t = testAuth({ providers: [credentials], debug: true });
    await submit(t, 'wrong');
    const [id] = flowIds(t);
    const res = await t.client.get(`/auth/_inspect/${id}`);
    expect(res.status).toBe(200);
    const page = await res.text();
    const diagram = /<pre class="mermaid">([\s\S]*?)<\/pre>/.exec(page)?.[1] ?? '';
    expect(diagram).toContain('stateDiagram-v2');
    expect(diagram).toContain('idle --&gt; authorizing : (1) SUBMIT');
    expect(diagram).toContain('authorizing --&gt; credentialsSignin : (2) done: authorize');
    expect(diagram).toContain('class idle,authorizing,credentialsSignin visited');
    expect(diagram).toContain('class credentialsSignin failed');
    expect(diagram).not.toMatch(/\(\d+\) error: authorize/);
    // Why it failed, and the trace table.
    expect(page).toContain('<dt>error</dt><dd class="mono">CredentialsSignin</dd>');
    expect(page).toContain('<dt>expected</dt><dd class="mono">a user</dd>');
    expect(page).toContain('<dt>actual</dt><dd class="mono">null</dd>');
    expect(page).toContain('<td class="mono">xstate.done.actor.authorize</td>');
    // Mermaid is installed as a dev dependency: the page's own script (by nonce) loads it from this server once the
    // diagram is in view; the 3.5 MB bundle is not part of the first view.
    const nonce = /script-src 'nonce-([^']+)'/.exec(res.headers.get('content-security-policy') ?? '')?.[1];
    expect(page).toContain(`<script nonce="${nonce}">`);
    expect(page).toContain('<div class="diagram" data-mermaid-src="/auth/_inspect/mermaid.js">');
    expect(page).not.toMatch(/<script[^>]*src=/);
    expect(page.indexOf('<h2>Trace</h2>')).toBeLessThan(page.indexOf('class="diagram"'));
    expect(page).not.toMatch(/<script(?![^>]*nonce=)/);
    expect(page).not.toMatch(/https?:\/\/(?!localhost)/);
  });

  it('joins a paused OAuth sign-in and its failed callback into one flow', async () => {
    const t = testAuth({ providers: [acme], debug: true });
    await t.client.post('/auth/signin/acme', { csrfToken: await t.csrfToken() });
    await t.client.get('/auth/callback/acme?code=c&state=forged');
    const ids = flowIds(t);
    expect(ids).toHaveLength(1);
    const list = await (await t.client.get('/auth/_inspect')).text();
    expect(list.split('<tr>').slice(2)).toHaveLength(1);
    expect(list).toContain('<td class="num">2</td>');
    const page = await (await t.client.get(`/auth/_inspect/${ids[0]}`)).text();
    expect(page).toContain('request 1: paused');
    expect(page).toContain('request 2: failed (InvalidCheck)');
    expect(page).toContain('<dt>state</dt><dd class="mono">failed.invalidCheck</dd>');
    const diagram = /<pre class="mermaid">([\s\S]*?)<\/pre>/.exec(page)?.[1] ?? '';
    expect(diagram).toContain('idle --&gt; preparing : (1) START');
    expect(diagram).toMatch(/awaitingCallback --&gt; exchanging : \(3\) CALLBACK/);
    expect(diagram).toContain('class invalidCheck failed');
  });

  it('answers 404 for an id it does not hold, whatever the id looks like', async () => {
    const t = testAuth({ providers: [credentials], debug: true });
    for (const id of ['0123456789abcdef', 'not-an-id', '%3Cscript%3E', 'A'.repeat(300)]) {
      const res = await t.client.get(`/auth/_inspect/${id}`);
      expect(res.status).toBe(404);
      const page = await res.text();
      expect(page).toContain('No such flow');
      expect(page).not.toContain('<script>');
    }
  });

  it('serves the Mermaid bundle from the installed package', async () => {
    const t = testAuth({ providers: [credentials], debug: true });
    const res = await t.client.get('/auth/_inspect/mermaid.js');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    const body = await res.text();
    expect(body.length).toBeGreaterThan(1_000_000);
    expect(body).toContain('stateDiagram');
  });

  it('escapes user-controlled text from flows on both pages', async () => {
    const t = testAuth({ providers: [credentials], debug: true });
    await submit(t, 'crash', '"><script>alert(2)</script>');
    const [id] = flowIds(t);
    for (const path of ['/auth/_inspect', `/auth/_inspect/${id}`]) {
      const page = await (await t.client.get(path)).text();
      expect(page).not.toContain('<img src=x');
      expect(page).not.toContain('<script>alert');
    }
    const detail = await (await t.client.get(`/auth/_inspect/${id}`)).text();
    expect(detail).toContain('no user &lt;img src=x onerror=&quot;alert(1)&quot;&gt; for &quot;&gt;&lt;script&gt;alert(2)&lt;/script&gt;');
  });
});

describe('inspector rendering', () => {
  const ctx: InspectPageContext = { inspectPath: '/auth/_inspect', mermaidUrl: null, nonce: 'n0nce', capacity: 100 };
  const hostile = '</pre><script>alert(1)</script>';

  function hostileFlow() {
    const record = flowRecord({
      id: '00000000000000aa',
      provider: hostile,
      machine: hostile,
      startedAt: 0,
      durationMs: 1,
      status: 'failed',
      trace: [{ from: 'idle', event: hostile, to: 'authorizing', guard: hostile, at: 0 }],
      error: new InvalidCheck(hostile, { state: hostile, event: hostile, expected: hostile, actual: { [hostile]: hostile }, err: new Error(hostile) }),
    });
    const log = new FlowLog();
    return log.add(record, credentialsMachine);
  }

  it('escapes every field of a record, wherever it appears', () => {
    const flow = hostileFlow();
    for (const page of [renderInspectList([flow], ctx), renderInspectFlow(flow, ctx)]) {
      expect(page).not.toContain('<script>alert');
      expect(page).not.toContain('</pre><script>');
      expect(page).toContain('&lt;/pre&gt;&lt;script&gt;alert(1)&lt;/script&gt;');
    }
  });

  it('shows the Mermaid source with a note, and loads no script, when mermaid is not installed', () => {
    const page = renderInspectFlow(hostileFlow(), ctx);
    expect(page).toContain('Install the optional <code>mermaid</code> package');
    expect(page).toMatch(/<pre class="mermaid">stateDiagram-v2\n/);
    expect(page).not.toContain('<script');
    const withMermaid = renderInspectFlow(hostileFlow(), { ...ctx, mermaidUrl: '/auth/_inspect/mermaid.js' });
    expect(withMermaid).not.toContain('Install the optional');
    expect(withMermaid).toContain('data-mermaid-src="/auth/_inspect/mermaid.js"');
    expect(withMermaid).toContain('<script nonce="n0nce">');
  });

  it('says when a flow failed before its machine ran', () => {
    const log = new FlowLog();
    const flow = log.add(flowRecord({ id: '00000000000000bb', provider: 'acme', machine: 'oauth', startedAt: 0, durationMs: 0, status: 'failed', trace: [], error: new InvalidCheck('The flow cookie is missing.') }), credentialsMachine);
    const page = renderInspectFlow(flow, ctx);
    expect(page).toContain('The flow failed before its machine ran');
    expect(page).not.toContain(' failed\n');
    expect(page).not.toMatch(/class \S+ failed/);
  });
});
