// `npx authchart` from the packed tarball, in a fresh project outside the repository, on this Node (20): a TypeScript
// configuration loads through the app's own tsx; a JavaScript one as it is; the default, `authConfig` or `config`
// export is read, and the command says which. The doctor names each problem of the broken fixture.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packAndInstall } from '../package/install.js';
import { expectBrokenFindings } from './broken-findings.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const TSX = (JSON.parse(readFileSync(join(ROOT, 'node_modules/tsx/package.json'), 'utf8')) as { version: string }).version;
let dir: string;

/** The fixture as an app writes it: the package's entries instead of the repository's sources. */
function asApp(fixture: string): string {
  return readFileSync(join(ROOT, 'test/cli/fixtures', fixture), 'utf8')
    .replaceAll("'../../../src/index.js'", "'authchart'")
    .replaceAll("'../../../src/providers/index.js'", "'authchart/providers'")
    .replaceAll("'../../../src/providers/catalogue/github.js'", "'authchart/providers/github'")
    .replaceAll("'../../../src/providers/entries/oidc.js'", "'authchart/providers/oidc'");
}

async function npx(args: string[], env: Record<string, string> = {}): Promise<{ code: number; out: string; err: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)('npx', ['--no-install', 'authchart', ...args], { cwd: dir, env: { PATH: process.env.PATH!, HOME: process.env.HOME!, ...env }, timeout: 90_000 });
    return { code: 0, out: stdout, err: stderr };
  } catch (error) {
    const e = error as { code?: number; stdout?: string; stderr?: string };
    return { code: e.code ?? -1, out: e.stdout ?? '', err: e.stderr ?? '' };
  }
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'authchart-cli-'));
  packAndInstall(dir, { tsx: TSX });
  writeFileSync(join(dir, 'auth.config.ts'), asApp('broken.config.ts'));
  writeFileSync(join(dir, 'named.config.ts'), asApp('oauth.config.ts'));
  if (/\.\.\/src\//.test(readFileSync(join(dir, 'named.config.ts'), 'utf8') + readFileSync(join(dir, 'auth.config.ts'), 'utf8'))) throw new Error('a fixture imports the repository');
  writeFileSync(join(dir, 'plain.config.js'), "import { Credentials } from 'authchart';\nexport default { trustHost: true, providers: [Credentials({ credentials: { username: {} }, authorize: () => null })] };\n");
}, 300_000);
afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('npx authchart, installed from the tarball in a fresh project', () => {
  it('doctor reads auth.config.ts (its `authConfig` export) and names each problem, saying what to add', async () => {
    const { code, out, err } = await npx(['doctor'], { NODE_ENV: 'production' });
    expect(err).toBe('');
    expect(out).toMatch(/^authchart doctor: .*\/auth\.config\.ts, its export `authConfig`$/m);
    expectBrokenFindings(out);
    expect(code).toBe(1);
  }, 90_000);

  it('reads a `config` export of a TypeScript file given with --config', async () => {
    const { out, err } = await npx(['doctor', '--config', 'named.config.ts'], { AUTH_GITHUB_ID: 'id', AUTH_GITHUB_SECRET: 'secret', AUTH_PUBLIC_ID: 'public' });
    expect(out, err).toMatch(/named\.config\.ts, its export `config`$/m);
    expect(out).toContain('No problem found.');
  }, 90_000);

  it('reads the default export of a JavaScript file, and visualize says where it read it', async () => {
    const { code, out, err } = await npx(['visualize', '--config', 'plain.config.js']);
    expect(err).toMatch(/authchart visualize: .*plain\.config\.js, its default export/);
    expect(out).toContain('## credentials (machine `credentials`)');
    expect(code).toBe(0);
  }, 90_000);
});
