// The one door to the environment tolerates a runtime that refuses it (Deno without --allow-env throws on each
// read, or on listing the names), and resolving a configuration goes through it.
import { describe, expect, it } from 'vitest';
import { resolveConfig } from '../../src/core/config.js';
import { runtimeEnv } from '../../src/core/env.js';

/** Runs `action` while process.env behaves as `env`, then puts the real one back. */
function withEnv<T>(env: object, action: () => T): T {
  const saved = Object.getOwnPropertyDescriptor(process, 'env')!;
  Object.defineProperty(process, 'env', { value: env, configurable: true, writable: true });
  try {
    return action();
  } finally {
    Object.defineProperty(process, 'env', saved);
  }
}

const denied = new Proxy({}, {
  get: () => { throw new Error('NotCapable: Requires env access'); },
  has: () => { throw new Error('NotCapable: Requires env access'); },
  ownKeys: () => { throw new Error('NotCapable: Requires env access'); },
});

describe('runtimeEnv', () => {
  it('reads the variables that are set', () => {
    withEnv({ AUTH_SECRET: 'x'.repeat(40) }, () => {
      expect(runtimeEnv().AUTH_SECRET).toBe('x'.repeat(40));
      expect(runtimeEnv().AUTH_URL).toBeUndefined();
      expect(Object.keys(runtimeEnv())).toEqual(['AUTH_SECRET']);
    });
  });

  it('a denied permission reads as unset, never as a throw', () => {
    withEnv(denied, () => {
      expect(runtimeEnv().AUTH_SECRET).toBeUndefined();
      expect('AUTH_SECRET' in runtimeEnv()).toBe(false);
      expect(Object.keys(runtimeEnv())).toEqual([]);
    });
  });

  it('some names allowed, others denied (Deno --allow-env=AUTH_SECRET)', () => {
    const partial = new Proxy({ AUTH_SECRET: 'y'.repeat(40) } as Record<string, string>, {
      get: (t, k) => { if (k === 'AUTH_SECRET') return t[k]; throw new Error('NotCapable'); },
      ownKeys: () => { throw new Error('NotCapable'); },
    });
    withEnv(partial, () => {
      expect(runtimeEnv().AUTH_SECRET).toBe('y'.repeat(40));
      expect(runtimeEnv().NODE_ENV).toBeUndefined();
    });
  });

  it('no process at all (a worker without nodejs_compat): empty', () => {
    const saved = Object.getOwnPropertyDescriptor(globalThis, 'process')!;
    Object.defineProperty(globalThis, 'process', { value: undefined, configurable: true, writable: true });
    try {
      expect(runtimeEnv().AUTH_SECRET).toBeUndefined();
    } finally {
      Object.defineProperty(globalThis, 'process', saved);
    }
  });

  it('a configuration resolves with the environment denied, taking the explicit options', () => {
    const config = withEnv(denied, () => resolveConfig({ providers: [], secret: 's'.repeat(40), trustHost: true }));
    expect(config.secrets).toEqual(['s'.repeat(40)]);
  });
});
