// The Nitro 3 example built with Nitro's Cloudflare preset (cloudflare-module) and run in workerd through miniflare
// (nodejs_compat): authchart's route answers, a credentials sign-in sets the session, every route reads it. Built
// from a copy of the example (examples/.nitro-v3-cloudflare, git-ignored) so it never races the Node build of
// test/examples/nitro-v3.test.ts over .output/.
import { execFile } from 'node:child_process';
import { cpSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../e2e/peers/net.js';
import { createClient } from '../support/client.js';
import { sessionOf, signInWithCredentials } from '../support/signin-over-http.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const EXAMPLE = join(ROOT, 'examples/nitro-v3');
const COPY = join(ROOT, 'examples/.nitro-v3-cloudflare');
const MINIFLARE = join(ROOT, 'runtimes/node_modules/miniflare/dist/src/index.js');

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? files(path) : [path];
  });
}

describe('the Nitro 3 example on workerd (cloudflare-module preset, miniflare)', () => {
  let mf: { ready: Promise<URL>; dispose(): Promise<void> } | undefined;
  let origin: string;

  beforeAll(async () => {
    rmSync(COPY, { recursive: true, force: true });
    cpSync(EXAMPLE, COPY, { recursive: true, filter: (src) => !/[/\\](node_modules|\.output|\.nitro)$/.test(src) });
    symlinkSync(join(EXAMPLE, 'node_modules'), join(COPY, 'node_modules'), 'dir');
    // What a Cloudflare project declares (a compatibility date from when nodejs_compat has node:fs, which pg, bundled
    // for the example's optional organizations, imports): Nitro's preset reads it to leave node:crypto to workerd's nodejs_compat
    // (without it, unenv's stub takes its place and createHmac throws).
    writeFileSync(join(COPY, 'wrangler.json'), JSON.stringify({ name: 'authchart-nitro-v3', main: '.output/server/index.mjs', compatibility_date: '2025-10-01', compatibility_flags: ['nodejs_compat'] }, null, 2));
    // No minifier: the preset's default wants @rollup/plugin-terser, which the example does not install.
    await promisify(execFile)(join(COPY, 'node_modules/.bin/nitro'), ['build', '--preset', 'cloudflare-module', '--no-minify'], { cwd: COPY, timeout: 240_000 });
    const server = join(COPY, '.output/server');
    const modules = files(server).filter((f) => f.endsWith('.mjs'));
    modules.sort((a, b) => Number(b.endsWith(`${server}/index.mjs`)) - Number(a.endsWith(`${server}/index.mjs`)));
    const port = await freePort();
    origin = `http://127.0.0.1:${port}`;
    const { Miniflare } = (await import(pathToFileURL(MINIFLARE).href)) as { Miniflare: new (options: Record<string, unknown>) => { ready: Promise<URL>; dispose(): Promise<void> } };
    mf = new Miniflare({
      host: '127.0.0.1', port, modulesRoot: server,
      modules: modules.map((path) => ({ type: 'ESModule', path, contents: readFileSync(path, 'utf8') })),
      compatibilityDate: '2025-10-01', compatibilityFlags: ['nodejs_compat'],
      bindings: { AUTH_SECRET: 'nitro-cloudflare-secret-0123456789-0123456789', AUTH_URL: origin },
    });
    await mf.ready;
  }, 300_000);

  afterAll(async () => {
    await mf?.dispose();
    rmSync(COPY, { recursive: true, force: true });
  });

  it('signs in with credentials; the session reaches every route', async () => {
    const client = createClient({ baseUrl: origin });
    expect(await sessionOf(client)).toBeNull();
    const res = await signInWithCredentials(client, { email: 'ada@example.test', password: 'analytical-engine' }, `${origin}/dashboard`);
    expect(res.status).toBe(302);
    expect(res.location?.href).toBe(`${origin}/dashboard`);
    expect((await sessionOf(client))?.user).toMatchObject({ name: 'Ada Lovelace', email: 'ada@example.test' });
    const page = await client.get('/dashboard');
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('Hello, Ada Lovelace');
  });
});
