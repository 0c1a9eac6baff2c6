// The per-kind provider subpaths of the BUILT package (authchart/providers/oidc, /email, /webauthn, /credentials):
// each imports from the installed tarball with the same factories the full barrel (authchart/providers) exports, and
// importing one kind loads none of the others: an OIDC-only app does not parse the catalogue's presets, the e-mail
// senders or WebAuthn. Checked on the dist files a fresh process really loaded (their `//#region src/...` markers);
// the barrel, which loads them all, shows the check can fail.
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packAndInstall } from './install.js';
import { loadedModules, type LoadedModules } from './loaded-modules.js';

let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'authchart-provider-subpaths-'));
  packAndInstall(dir);
  copyFileSync(fileURLToPath(new URL('./app/import-subpath.mjs', import.meta.url)), join(dir, 'import-subpath.mjs'));
  copyFileSync(fileURLToPath(new URL('./app/preset-subpaths.mjs', import.meta.url)), join(dir, 'preset-subpaths.mjs'));
  for (const file of ['cold-path-hooks.mjs', 'cold-path-register.mjs']) copyFileSync(fileURLToPath(new URL(`../architecture/${file}`, import.meta.url)), join(dir, file));
}, 240_000);

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

function imported(specifier: string): LoadedModules & { names: string[] } {
  const log = join(dir, `${specifier.replaceAll('/', '_')}.log`);
  rmSync(log, { force: true });
  const out = execFileSync(process.execPath, ['--import', './cold-path-register.mjs', 'import-subpath.mjs', specifier], {
    cwd: dir,
    encoding: 'utf8',
    timeout: 60_000,
    env: { PATH: process.env.PATH, COLD_PATH_LOG: log },
  });
  return { names: JSON.parse(out) as string[], ...loadedModules(dir, log) };
}

/** The modules of each kind, by their source paths (a bundle's regions, or the libraries behind them). */
const KINDS = {
  catalogue: /^\/src\/providers\/catalogue\//,
  email: /^\/src\/providers\/(email\.ts$|email-senders\/)/,
  webauthn: /^(\/src\/providers\/webauthn\.ts$|\/node_modules\/@simplewebauthn\/)/,
  oauth: /^\/src\/providers\/oauth\.ts$/,
};
const kindsIn = (modules: string[]) => Object.entries(KINDS).filter(([, pattern]) => modules.some((m) => pattern.test(m))).map(([kind]) => kind).sort();

describe('the provider subpaths of the packed build', () => {
  it('each exports its kind, as the barrel does', () => {
    const barrel = imported('authchart/providers').names;
    const expected: Record<string, string[]> = {
      oidc: ['OAuth', 'OIDC', 'definePreset'],
      email: ['Email', 'Nodemailer', 'Resend', 'SendGrid', 'Postmark', 'Mailgun', 'ForwardEmail', 'Loops', 'EmailApiError', 'EMAIL_API_TIMEOUT', 'normalizeEmailAddress', 'sendMagicLinkMail', 'asciiEmailDomain'],
      webauthn: ['Passkey', 'WebAuthn'],
      credentials: ['Credentials'],
    };
    for (const [kind, names] of Object.entries(expected)) {
      const { names: exported } = imported(`authchart/providers/${kind}`);
      expect(exported, kind).toEqual([...names].sort());
      for (const name of exported) expect(barrel, `${kind}: ${name}`).toContain(name);
    }
  }, 120_000);

  it('authchart/providers/oidc loads the OAuth factories and none of the catalogue, the e-mail senders or WebAuthn', () => {
    const { modules, files } = imported('authchart/providers/oidc');
    expect(kindsIn(modules)).toEqual(['oauth']);
    expect(files.length, files.join(' ')).toBeLessThanOrEqual(2);
  }, 60_000);

  it('each other kind loads only its own', () => {
    expect(kindsIn(imported('authchart/providers/email').modules)).toEqual(['email']);
    expect(kindsIn(imported('authchart/providers/webauthn').modules)).toEqual(['webauthn']);
    expect(kindsIn(imported('authchart/providers/credentials').modules)).toEqual([]);
  }, 60_000);

  it('each catalogue preset has a subpath, as in @auth/core/providers/<file>: its default export builds the provider the barrel builds', () => {
    const out = execFileSync(process.execPath, ['preset-subpaths.mjs'], { cwd: dir, encoding: 'utf8', timeout: 60_000, env: { PATH: process.env.PATH } });
    const presets = JSON.parse(out) as Record<string, { exports: string[]; factory: string; same: boolean; id: string }>;
    expect(Object.keys(presets).length).toBe(93);
    for (const [name, preset] of Object.entries(presets)) {
      expect(preset.exports, name).toEqual(['default']);
      expect(preset.same, `${name}: ${preset.factory}`).toBe(true);
    }
    expect(presets.github).toMatchObject({ factory: 'GitHub', id: 'github' });
    expect(presets['microsoft-entra-id']).toMatchObject({ factory: 'MicrosoftEntraID', id: 'microsoft-entra-id' });
  }, 120_000);

  it('authchart/providers/github loads GitHub and none of the other presets, the e-mail senders or WebAuthn', () => {
    const { modules, files } = imported('authchart/providers/github');
    expect(modules.filter((m) => KINDS.catalogue.test(m)).sort()).toEqual(['/src/providers/catalogue/_http.ts', '/src/providers/catalogue/github.ts']);
    expect(kindsIn(modules)).toEqual(['catalogue', 'oauth']);
    // The preset, the OAuth factories, the catalogue's HTTP helpers and what they need of the core.
    expect(files.filter((f) => !/^(core|srvx-node)-?/.test(f)).length, files.join(' ')).toBeLessThanOrEqual(4);
  }, 60_000);

  it('the check can fail: the barrel loads every kind', () => {
    expect(kindsIn(imported('authchart/providers').modules)).toEqual(['catalogue', 'email', 'oauth', 'webauthn']);
  }, 60_000);
});
