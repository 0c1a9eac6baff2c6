// `npm run instances` behind one public origin (AUTH_URL, as behind a load balancer): a "Sign in with Demo IdP"
// begun on the first demo instance, through the one demo IdP they share, finishes on the second; the session it
// made is good on both, and the same callback sent again is refused.
import { describe, expect, it } from 'vitest';
import { startInstances } from '../../scripts/instances.js';
import { DATABASE_URL, REDIS_URL, useSharedStores } from '../support/shared-stores.js';
import { freePort } from './peers/net.js';
import { SiteBrowser } from './peers/site-browser.js';

const stores = useSharedStores();

describe('demo instances behind one origin', () => {
  it('an OAuth sign-in with the shared demo IdP begun on A finishes on B', { timeout: 120_000 }, async () => {
    await stores.redis(); // registers the clean-up of this run's Redis keys
    const lines: string[] = [];
    const run = await startInstances({
      ports: [await freePort(), await freePort()],
      idpPort: await freePort(),
      databaseUrl: DATABASE_URL,
      redisUrl: REDIS_URL,
      schema: await stores.schema(),
      redisPrefix: `${stores.redisPrefix}throttle:`,
      env: { AUTH_URL: 'http://app.test/auth' },
      onLine: (index, line) => void lines.push(`[${index}] ${line}`),
    });
    try {
      const [a, b] = run.origins;
      const app = new SiteBrowser();
      const idp = new SiteBrowser();
      const begun = await app.post(a, '/auth/signin/demo-idp', { callbackUrl: '/protected' });
      expect(begun.status, lines.join('\n')).toBe(302);
      // At the IdP: its login page, then the user "alice", then back to the public origin's callback.
      let at = new URL(begun.headers.get('location')!);
      expect(at.origin).toBe(run.idp.issuer);
      for (let hop = 0; hop < 10 && at.origin === run.idp.issuer; hop++) {
        const interaction = /^\/interaction\/([^/]+)$/.exec(at.pathname)?.[1];
        const res = interaction
          ? await idp.fetch(at.origin, `/interaction/${interaction}/login`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'login=alice&password=any' })
          : await idp.fetch(at.origin, `${at.pathname}${at.search}`);
        at = new URL(res.headers.get('location')!, at);
      }
      expect(at.origin).toBe('http://app.test');
      expect(at.pathname).toBe('/auth/callback/demo-idp');

      // The callback goes to B: the flow cookie A set, opened with the shared secret; the code is B's to redeem.
      const done = await app.fetch(b, `${at.pathname}${at.search}`);
      expect(done.status).toBe(302);
      expect(done.headers.get('location')).toBe('http://app.test/protected');
      expect(await app.user(b)).toBe('alice@demo-idp.test');
      expect(await app.user(a)).toBe('alice@demo-idp.test');

      // The same callback again, from a browser that holds nothing: no session on either.
      for (const origin of [a, b]) {
        const stranger = new SiteBrowser();
        const replay = await stranger.fetch(origin, `${at.pathname}${at.search}`);
        expect(new URL(replay.headers.get('location')!).searchParams.get('error')).not.toBeNull();
        expect(await stranger.user(origin)).toBeNull();
      }
    } finally {
      await run.stop();
    }
  });
});
