// Resuming a paused flow puts the request's deps (and through them the configuration) into the restored context,
// and xstate's restore walks every enumerable object there. The environment view must not be one of them: walking
// it enumerates and reads every variable of the process on each callback. Reading `config.env` still works.
import { describe, expect, it } from 'vitest';
import { resolveConfig } from '../../../src/core/config.js';
import type { AuthConfig } from '../../../src/core/options.js';
import { flowDeps } from '../../../src/flows/runtime/deps.js';
import { createAuthRequest } from '../../../src/http/request.js';
import { ORIGIN, TEST_SECRET } from '../../support/auth-app.js';
import { runFlow } from '../../support/run-flow.js';
import { fixtureProvider, pausingFlow } from './fixtures/runtime-flows.js';

/** An environment like `runtimeEnv()`'s (a view whose reads go to the runtime), counting whole-environment walks. */
function countingEnv(values: Record<string, string>) {
  const walks = { ownKeys: 0 };
  const env = new Proxy({} as Record<string, string | undefined>, {
    get: (_, name) => (typeof name === 'string' ? values[name] : undefined),
    has: (_, name) => typeof name === 'string' && name in values,
    ownKeys: () => {
      walks.ownKeys += 1;
      return Object.keys(values);
    },
    getOwnPropertyDescriptor: (_, name) => (typeof name === 'string' && name in values ? { value: values[name], enumerable: true, configurable: true } : undefined),
  });
  return { env, walks };
}

describe('the environment in a resumed flow', () => {
  it('is read through config.env, but is not an enumerable part of the configuration', () => {
    const { env, walks } = countingEnv({ AUTH_EXAMPLE: 'yes' });
    const config = resolveConfig({ secret: TEST_SECRET, trustHost: true, providers: [] } as unknown as AuthConfig, { env });
    expect(config.env.AUTH_EXAMPLE).toBe('yes');
    expect(Object.keys(config)).not.toContain('env');
    expect(walks.ownKeys).toBe(0);
  });

  it('is never enumerated when a paused flow is restored and completes', async () => {
    const { env, walks } = countingEnv({ AUTH_EXAMPLE: 'yes', ...Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`OTHER_${i}`, 'x'])) });
    const flow = pausingFlow();
    const provider = fixtureProvider('alpha', flow);
    const config = resolveConfig({ secret: TEST_SECRET, trustHost: true, providers: [provider] } as unknown as AuthConfig, { env });
    const deps = flowDeps(await createAuthRequest(new Request(`${ORIGIN}/auth/callback/alpha`, { method: 'POST' }), config), provider, `${ORIGIN}/`);
    const first = await runFlow(flow, deps, { resume: false, event: { type: 'START' } });
    expect(first.status).toBe('paused');
    const paused = (first as Extract<typeof first, { status: 'paused' }>).paused;
    const before = walks.ownKeys;
    const callback = { type: 'CALLBACK', code: 'ok' };
    const done = await runFlow(flow, deps, { resume: true, event: callback }, paused);
    expect(done.status).toBe('signedIn');
    expect(walks.ownKeys - before).toBe(0);
  });
});
