// Flows get what they need through their input, never from a process-wide store: concurrent requests each run
// their own provider's code, and running a flow turns on no AsyncLocalStorage (while one is enabled, Node runs a
// hook on every promise of the process, sign-in or not).
import { AsyncLocalStorage } from 'node:async_hooks';
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Credentials } from '../../../src/providers/credentials.js';
import { testAuth } from '../../support/auth-app.js';

const slow = (id: string, delayMs: number) =>
  Credentials({
    id,
    name: id,
    authorize: async (c) => {
      await new Promise((r) => setTimeout(r, delayMs));
      return { id: `${id}-user`, email: `${String(c.email)}`, name: id };
    },
  });

const SRC = resolve(dirname(fileURLToPath(import.meta.url)), '../../../src');

/** Every source module the package entry reaches through static and dynamic relative imports. */
function reachableModules(entry: string): Map<string, string> {
  const seen = new Map<string, string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    const text = readFileSync(file, 'utf8');
    seen.set(file, text);
    for (const [, spec] of text.matchAll(/(?:from\s+|import\s*\(\s*)['"](\.{1,2}\/[^'"]+)['"]/g)) {
      visit(resolve(dirname(file), spec.replace(/\.js$/, '.ts')));
    }
  };
  visit(entry);
  return seen;
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('no per-request store', () => {
  it('interleaved sign-ins with two providers of one flow each run their own authorize', async () => {
    const t = testAuth({ providers: [slow('first', 40), slow('second', 5)] });
    const clients = Array.from({ length: 6 }, () => t.newClient());
    const results = await Promise.all(
      clients.map(async (client, i) => {
        const provider = i % 2 === 0 ? 'first' : 'second';
        const csrfToken = await t.csrfToken(client);
        const res = await client.post(`/auth/callback/${provider}`, { csrfToken, email: `u${i}@example.test` });
        expect(res.status).toBe(302);
        const session = (await (await client.get('/auth/session')).json()) as { user: { name: string; email: string } };
        return { provider, session };
      }),
    );
    for (const [i, { provider, session }] of results.entries()) {
      expect(session.user.name).toBe(provider);
      expect(session.user.email).toBe(`u${i}@example.test`);
    }
  });

  it('enters no AsyncLocalStorage while a flow runs, nor after', async () => {
    // Whatever instance it were, a store only holds a value through run() or enterWith().
    const run = vi.spyOn(AsyncLocalStorage.prototype, 'run');
    const enterWith = vi.spyOn(AsyncLocalStorage.prototype, 'enterWith');
    let entered!: () => void;
    let release!: () => void;
    const inAuthorize = new Promise<void>((r) => (entered = r));
    const gate = new Promise<void>((r) => (release = r));
    const held = Credentials({
      id: 'held',
      authorize: async (c) => {
        entered();
        await gate;
        return { id: 'held-user', email: String(c.email) };
      },
    });
    const t = testAuth({ providers: [held] });
    const client = t.newClient();
    const csrfToken = await t.csrfToken(client);
    const signIn = client.post('/auth/callback/held', { csrfToken, email: 'a@example.test' });
    await inAuthorize;
    expect(run).not.toHaveBeenCalled();
    expect(enterWith).not.toHaveBeenCalled();
    release();
    const res = await signIn;
    expect(res.status).toBe(302);
    expect(res.setCookie.some((line) => line.startsWith('authchart.session-token='))).toBe(true);
    expect(run).not.toHaveBeenCalled();
    expect(enterWith).not.toHaveBeenCalled();
  });

  it('imports node:async_hooks nowhere the package entry reaches but the API forms\' request scope, which no flow reads', () => {
    const modules = reachableModules(resolve(SRC, 'index.ts'));
    const paths = [...modules.keys()].map((file) => file.slice(SRC.length + 1));
    // The walk does reach the flows: the registry's lazy imports and the tail.
    expect(paths).toEqual(expect.arrayContaining(['flows/runtime/run.ts', 'flows/signin/machine.ts', 'flows/credentials/machine.ts', 'flows/oauth/machine.ts']));
    const users = [...modules].filter(([, text]) => /async_hooks|AsyncLocalStorage/.test(text)).map(([file]) => file.slice(SRC.length + 1));
    // `auth()`, `unstable_update(data)`... find the request an application handler answers (issue 15); only the
    // integrations' middleware and handler wrappers enter it, and nothing below http/ imports it.
    expect(users).toEqual(['http/integrations/request-scope.ts']);
    const importers = [...modules].filter(([, text]) => /request-scope\.js['"]/.test(text)).map(([file]) => file.slice(SRC.length + 1));
    expect(importers.length).toBeGreaterThan(0);
    for (const file of importers) expect(file).toMatch(/^http\/integrations\//);
  });
});
