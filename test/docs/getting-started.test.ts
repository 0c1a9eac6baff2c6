// Every getting-started page, followed as a new user would: a fresh folder outside the repository, the page's own
// commands (what it installs comes from the npm registry, authchart from the packed tarball), its files as written,
// its start command; then a browser-like client signs in with the page's credentials and reads the session. A page
// whose snippets or commands drift from the package fails here. The pages run concurrently, sharing npm's cache.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../e2e/peers/net.js';
import { pack } from '../package/install.js';
import { createClient } from '../support/client.js';
import { sessionOf, signInWithCredentials } from '../support/signin-over-http.js';
import { prepare, recipeOf, serve } from './recipe.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const PAGES = readdirSync(join(ROOT, 'docs')).filter((f) => /^getting-started-.+\.md$/.test(f)).sort();
/** What every recipe signs in with (its stand-in `authorize`). */
const ADA = { email: 'ada@example.com', password: 'let-me-in' };

let tarball: string;
const dirs: string[] = [];
beforeAll(() => {
  tarball = pack().tarball;
}, 300_000);
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** A clean environment: no variable of this repository's test run, the runtimes the pages name on PATH, npm's cache. */
function environment(port: number): NodeJS.ProcessEnv {
  return {
    PATH: `${join(ROOT, 'runtimes/node_modules/.bin')}:${process.env.PATH}`,
    HOME: process.env.HOME,
    TMPDIR: process.env.TMPDIR,
    npm_config_prefer_offline: 'true',
    npm_config_audit: 'false',
    npm_config_fund: 'false',
    npm_config_update_notifier: 'false',
    DENO_NO_UPDATE_CHECK: '1',
    NO_COLOR: '1',
    // The port the app serves on, and the URL it is reached at (what production sets; a page's .env may say 3000).
    PORT: String(port),
    AUTH_URL: `http://localhost:${port}`,
  };
}

describe.concurrent('each getting-started page, copied into a fresh project', () => {
  it('finds the pages', () => {
    expect(PAGES).toEqual(expect.arrayContaining(['getting-started-h3.md', 'getting-started-node.md', 'getting-started-nitro.md']));
  });

  for (const page of PAGES) {
    it(`${page}: installs what it names, starts, signs in with credentials and reads the session`, async () => {
      const started = Date.now();
      const steps = recipeOf(page, readFileSync(join(ROOT, 'docs', page), 'utf8'));
      const dir = mkdtempSync(join(tmpdir(), `authchart-${page.replace(/\.md$/, '')}-`));
      dirs.push(dir);
      const port = await freePort();
      const env = environment(port);
      const command = await prepare(page, steps, dir, tarball, env);
      const origin = `http://localhost:${port}`;
      const app = await serve(page, command, dir, env, async () => (await fetch(`${origin}/auth/csrf`, { signal: AbortSignal.timeout(3000) })).status === 200);
      try {
        const client = createClient({ baseUrl: origin });
        const signedIn = await signInWithCredentials(client, ADA, `${origin}/`);
        expect(signedIn.status, app.output()).toBe(302);
        expect(signedIn.location?.href, app.output()).toBe(`${origin}/`);
        expect((await sessionOf(client))?.user?.email, app.output()).toBe(ADA.email);
        // A wrong password is refused.
        const other = createClient({ baseUrl: origin });
        expect((await signInWithCredentials(other, { ...ADA, password: 'wrong' }, `${origin}/`)).location?.searchParams.get('error')).toBe('CredentialsSignin');
        expect(await sessionOf(other)).toBeNull();
      } finally {
        app.stop();
      }
      console.log(`${page}: ${((Date.now() - started) / 1000).toFixed(1)} s from an empty folder to the session`);
    }, 600_000);
  }
});
