// `npx authchart`: secret, migrate (SQL printed, and applied to a real PostgreSQL when DATABASE_URL names one),
// visualize, and doctor, which passes on the demo's configuration and names each problem of a broken one. The
// demo and the broken configuration go through the real executable (src/cli/bin.ts under tsx), as a user runs it.
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { migrations } from '../../src/adapters/postgres/schema.js';
import { main } from '../../src/cli/index.js';
import { expectBrokenFindings } from './broken-findings.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

async function run(argv: string[], env: Record<string, string | undefined> = {}): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await main(argv, { out: (t) => void (out += `${t}\n`), err: (t) => void (err += `${t}\n`), env, cwd: ROOT });
  return { code, out, err };
}

/** The executable in a child process, with only the environment given (plus PATH). */
async function bin(argv: string[], env: Record<string, string> = {}): Promise<{ code: number; out: string }> {
  try {
    const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', 'src/cli/bin.ts', ...argv], { cwd: ROOT, env: { PATH: process.env.PATH, ...env }, timeout: 90_000 });
    return { code: 0, out: stdout };
  } catch (error) {
    const e = error as { code?: number; stdout?: string; stderr?: string };
    return { code: e.code ?? -1, out: `${e.stdout ?? ''}${e.stderr ?? ''}` };
  }
}

describe('authchart secret', () => {
  it('prints a new random secret, long enough for the doctor', async () => {
    const a = await run(['secret']);
    const b = await run(['secret']);
    expect(a.code).toBe(0);
    expect(a.out.trim()).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(a.out).not.toBe(b.out);
  });
});

describe('authchart migrate', () => {
  it('--print shows every migration\'s SQL', async () => {
    const { code, out } = await run(['migrate', '--print']);
    expect(code).toBe(0);
    for (const m of migrations) {
      expect(out).toContain(`-- ${m.version}: ${m.description}`);
      for (const statement of m.statements) expect(out).toContain(statement.trim());
    }
  });

  it('without a database says what it needs', async () => {
    const { code, err } = await run(['migrate']);
    expect(code).toBe(2);
    expect(err).toMatch(/DATABASE_URL/);
  });

  const url = process.env.DATABASE_URL;
  it('applies the schema to PostgreSQL, then finds it up to date', async () => {
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    const schema = `authchart_cli_${process.pid}_${Date.now().toString(36)}`;
    await admin.query(`CREATE SCHEMA ${schema}`);
    try {
      const scoped = new URL(url!);
      scoped.searchParams.set('options', `-c search_path=${schema}`);
      const first = await run(['migrate', '--url', scoped.href]);
      expect(first.err).toBe('');
      expect(first.out.trim()).toBe(`Applied migrations ${migrations.map((m) => m.version).join(', ')}.`);
      const tables = await admin.query<{ table_name: string }>('SELECT table_name FROM information_schema.tables WHERE table_schema = $1', [schema]);
      expect(tables.rows.map((r) => r.table_name)).toContain('users');
      const again = await run(['migrate'], { DATABASE_URL: scoped.href });
      expect(again.out.trim()).toBe('The schema is up to date.');
    } finally {
      await admin.query(`DROP SCHEMA ${schema} CASCADE`);
      await admin.end();
    }
  }, 60_000);
});

describe('authchart visualize', () => {
  it('draws each configured provider\'s flow and the sign-in tail', async () => {
    const { code, out } = await run(['visualize', '--config', 'test/cli/fixtures/small.config.ts']);
    expect(code).toBe(0);
    expect(out).toContain('## credentials (machine `credentials`)');
    expect(out).toContain('## signin');
    expect(out.match(/stateDiagram-v2/g)).toHaveLength(2);
  });

  it('--out writes one page per flow and an index', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'authchart-visualize-'));
    try {
      const { code } = await run(['visualize', '--config', 'test/cli/fixtures/small.config.ts', '--out', dir]);
      expect(code).toBe(0);
      expect(readdirSync(dir).sort()).toEqual(['README.md', 'credentials.md', 'signin.md']);
      expect(readFileSync(join(dir, 'credentials.md'), 'utf8')).toContain('stateDiagram-v2');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('authchart doctor', () => {
  it('passes on the demo\'s configuration', async () => {
    const port = String(41000 + (process.pid % 2000) * 2);
    const { code, out } = await bin(['doctor', '--config', 'examples/demo/auth.config.ts'], { PORT: port, DEMO_DATABASE: 'memory' });
    expect(out).toContain('No problem found.');
    expect(out).not.toMatch(/^ +problem /m);
    expect(code).toBe(0);
  }, 90_000);

  it('names each problem of a broken configuration, what to add for each, the export it read, and exits 1', async () => {
    const { code, out } = await bin(['doctor', '--config', 'test/cli/fixtures/broken.config.ts'], { NODE_ENV: 'production' });
    expect(code).toBe(1);
    expectBrokenFindings(out);
    expect(out).toMatch(/problem +DuplicateProviderId: Two providers share the id "password"/);
    expect(out).toContain('6 problems found.');
    expect(out).toMatch(/^authchart doctor: .*broken\.config\.ts, its export `authConfig`$/m);
  }, 90_000);

  it('a missing secret: fine in development (a random one per start), a problem in production', async () => {
    const dev = await run(['doctor', '--config', 'test/cli/fixtures/no-secret.config.ts'], { AUTH_URL: 'https://app.example.test' });
    expect(dev.out).toMatch(/ok +secret: none, so a random one per start in development/);
    expect(dev.code).toBe(0);
    const production = await run(['doctor', '--config', 'test/cli/fixtures/no-secret.config.ts'], { AUTH_URL: 'https://app.example.test', NODE_ENV: 'production' });
    expect(production.out).toMatch(/problem +No secret in production: set AUTH_SECRET \(`npx authchart secret` prints one\)/);
    expect(production.code).toBe(1);
  });

  it('an OAuth provider with its client id and secret in the environment passes; a public client needs no secret', async () => {
    const env = { AUTH_URL: 'https://app.example.test', AUTH_SECRET: 's'.repeat(32) };
    const without = await run(['doctor', '--config', 'test/cli/fixtures/oauth.config.ts'], env);
    expect(without.out).toMatch(/problem +Provider "github" lacks a client id/);
    // The public client (token_endpoint_auth_method 'none') lacks its id only: it sends no secret.
    expect(without.out).toMatch(/problem +Provider "public" lacks a client id \(AUTH_PUBLIC_ID, or `clientId`\): /);
    expect(without.code).toBe(1);
    const given = await run(['doctor', '--config', 'test/cli/fixtures/oauth.config.ts'], { ...env, AUTH_GITHUB_ID: 'id', AUTH_GITHUB_SECRET: 'secret', AUTH_PUBLIC_ID: 'public-id' });
    expect(given.out).toContain('No problem found.');
    expect(given.code).toBe(0);
  });

  it('in development, takes the host from the request as the app does', async () => {
    const { out } = await run(['doctor', '--config', 'test/cli/fixtures/broken.config.ts']);
    expect(out).toMatch(/ok +host: taken from the request in development/);
    expect(out).not.toMatch(/The host is not trusted/);
  });

  it('reads the secret and the host from the environment as the app does', async () => {
    const { code, out } = await run(['doctor', '--config', 'test/cli/fixtures/small.config.ts']);
    expect(code).toBe(0);
    const env = await run(['doctor', '--config', 'test/cli/fixtures/broken.config.ts'], { AUTH_URL: 'https://app.example.test' });
    expect(env.out).toMatch(/ok +host: from AUTH_URL/);
    expect(out).toContain('No problem found.');
  });

  it('without a configuration says where it looked', async () => {
    const { code, err } = await run(['doctor']);
    expect(code).toBe(1);
    expect(err).toMatch(/auth\.config\.ts/);
  });
});
