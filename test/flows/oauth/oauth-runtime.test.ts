// The runtime contract on the real OAuth machine: a paused flow expires by guard (timers are not restored), and a
// paused flow takes only the event it waits for. Driven through runFlow with the flow's own entries, no network.
import { flowDeps } from '../../../src/flows/runtime/deps.js';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { resolveConfig } from '../../../src/core/config.js';
import type { AuthConfig } from '../../../src/core/options.js';
import type { ResolvedProvider } from '../../../src/core/provider.js';
import { oauthFlow } from '../../../src/flows/oauth/machine.js';
import type { FlowDeps, FlowRoute } from '../../../src/flows/runtime/contract.js';
import { runFlow, type FlowResult } from '../../support/run-flow.js';
import { createAuthRequest } from '../../../src/http/request.js';
import GitHub from '../../../src/providers/catalogue/github.js';
import { ORIGIN, TEST_SECRET } from '../../support/auth-app.js';

/** The deps of one POST to `route` for GitHub, as the HTTP layer builds them. */
async function depsFor(provider: ResolvedProvider, route: FlowRoute): Promise<FlowDeps> {
  // A debug reader, so the runtime keeps the trace these tests read (without one it inspects nothing).
  const config = resolveConfig({ secret: TEST_SECRET, trustHost: true, providers: [provider], logger: { debug: () => {} } } as AuthConfig, { env: {} });
  const req = await createAuthRequest(new Request(`${ORIGIN}/auth/${route}/${provider.id}`, { method: 'POST' }), config);
  return flowDeps(req, provider, `${ORIGIN}/`);
}

function expectPaused(result: FlowResult): Extract<FlowResult, { status: 'paused' }> {
  expect(result.status).toBe('paused');
  return result as Extract<FlowResult, { status: 'paused' }>;
}

function expectFailed(result: FlowResult, type: string): Extract<FlowResult, { status: 'failed' }> {
  expect(result.status).toBe('failed');
  const failed = result as Extract<FlowResult, { status: 'failed' }>;
  expect(failed.error.type).toBe(type);
  return failed;
}

afterEach(() => {
  vi.useRealTimers();
});

describe('the OAuth flow on the runtime', () => {
  const github = GitHub({ clientId: 'client-id', clientSecret: 'client-secret' }) as unknown as ResolvedProvider;

  it('expires by guard: a GitHub callback 16 minutes later is an InvalidCheck, decided before any network call', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const signin = await depsFor(github, 'signin');
    // The flow's own entries build the events, as the HTTP layer does (the callback stamps its arrival time).
    const started = expectPaused(await runFlow(oauthFlow, signin, oauthFlow.entry('signin', signin, false)!));
    expect(started.paused.value).toBe('awaitingCallback');
    expect(started.response).toMatchObject({ kind: 'redirect', url: expect.stringMatching(/^https:\/\/github\.com\/login\/oauth\/authorize\?/) });
    vi.setSystemTime(Date.now() + 16 * 60 * 1000);
    const callback = await depsFor(github, 'callback');
    const result = await runFlow(oauthFlow, callback, oauthFlow.entry('callback', callback, true)!, started.paused);
    const failed = expectFailed(result, 'InvalidCheck');
    expect(failed.state).toBe('failed.invalidCheck');
    // The only transition taken is the guarded one.
    expect(result.trace.map((e) => `${e.from} --${e.event} [${e.guard}]--> ${e.to}`)).toEqual(['awaitingCallback --CALLBACK [flowExpired]--> failed.invalidCheck']);
  });

  it('refuses a START sent to a paused flow: InvalidRequest naming the state and the event, and nothing runs', async () => {
    const deps = await depsFor(github, 'signin');
    const start = oauthFlow.entry('signin', deps, false)!;
    const { paused } = expectPaused(await runFlow(oauthFlow, deps, start));
    const wrongEvent = await runFlow(oauthFlow, deps, { ...start, resume: true }, paused);
    expect(wrongEvent.status).toBe('refused');
    const refused = wrongEvent as Extract<FlowResult, { status: 'refused' }>;
    expect(refused.error.type).toBe('InvalidRequest');
    expect(refused.error.cause).toMatchObject({ state: 'awaitingCallback', event: 'START' });
    expect(refused.trace).toEqual([]);
  });

  it('seals no deps, response or failure, and no authorization parameters: only what the callback needs', async () => {
    const deps = await depsFor(github, 'signin');
    const { paused } = expectPaused(await runFlow(oauthFlow, deps, oauthFlow.entry('signin', deps, false)!));
    // GitHub checks PKCE only. Undefined fields (no state, no nonce, the dropped authorization parameters) vanish
    // in the cookie's JSON.
    const sealed = Object.entries(paused.context).filter(([, value]) => value !== undefined).map(([key]) => key);
    expect(sealed.sort()).toEqual(['callbackUrl', 'codeVerifier', 'flowId', 'providerId', 'startedAt']);
  });
});
