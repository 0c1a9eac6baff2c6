// Recording a flow (the debug log, the inspector's record) is for people reading logs: when it fails, the sign-in
// it describes still succeeds. A worker that refuses the record code, or a logger that throws, cannot turn a
// signed-in user into an error page.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Credentials } from '../../../src/providers/credentials.js';
import { testAuth } from '../../support/auth-app.js';
import { sessionOf, signInWithCredentials } from '../../support/signin-over-http.js';

const providers = [
  Credentials({
    credentials: { username: {}, password: {} },
    authorize: (c) => (c.password === 'right' ? { id: '1', name: String(c.username), email: 'ada@example.test' } : null),
  }),
];

afterEach(() => {
  vi.doUnmock('../../../src/flows/runtime/record.js');
  vi.resetModules();
});

describe('a failure to record a flow', () => {
  it('a logger whose debug throws: the sign-in succeeds', async () => {
    const app = testAuth({ providers, debug: true });
    app.logger.debug = () => {
      throw new Error('logger down');
    };
    const res = await signInWithCredentials(app.client, { username: 'ada', password: 'right' }, 'http://localhost:3000/home');
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe('http://localhost:3000/home');
    expect((await sessionOf(app.client))?.user?.name).toBe('ada');
  });

  it('the record code cannot load (a worker refusing the chunk): the sign-in succeeds, the reason is logged', async () => {
    vi.resetModules();
    vi.doMock('../../../src/flows/runtime/record.js', () => {
      throw new Error('Disallowed operation called within global scope');
    });
    const { testAuth: freshAuth } = await import('../../support/auth-app.js');
    const { Credentials: FreshCredentials } = await import('../../../src/providers/credentials.js');
    const app = freshAuth({
      providers: [FreshCredentials({ credentials: { password: {} }, authorize: (c) => (c.password === 'right' ? { id: '1', name: 'ada' } : null) })],
      debug: true,
    });
    const res = await signInWithCredentials(app.client, { password: 'right' }, 'http://localhost:3000/home');
    expect(res.headers.get('location')).toBe('http://localhost:3000/home');
    expect((await sessionOf(app.client))?.user?.name).toBe('ada');
    expect(app.logger.errors.map((e) => e.message)).toContain('Could not record a flow');
    // The record still went out, without the evidence.
    expect(app.logger.debugs.some((d) => d.message === 'flow credentials signedIn')).toBe(true);
  });
});
