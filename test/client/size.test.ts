// authchart/client's size budget and isolation, measured on a real bundle: esbuild, minified, then gzip. The
// passkey helpers are measured apart (a page that does not import them does not ship them).
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BUDGET = 5 * 1024;

/** esbuild from bench/ (`npm run bench:install`), else the copy tsx brings along. */
function loadEsbuild(): typeof import('esbuild') {
  const bench = `${ROOT}bench/package.json`;
  const require = createRequire(existsSync(`${ROOT}bench/node_modules/esbuild`) ? bench : `${ROOT}package.json`);
  return require('esbuild') as typeof import('esbuild');
}

/** Bundles an entry that re-exports `names` from the client: minified ESM, gzipped size and the files it took in. */
async function bundle(names: string[]) {
  const { build } = loadEsbuild();
  const result = await build({
    stdin: { contents: `export { ${names.join(', ')} } from './src/client/index.ts';`, resolveDir: ROOT, loader: 'ts', sourcefile: 'entry.ts' },
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    write: false,
    metafile: true,
    logLevel: 'silent',
  });
  const code = result.outputFiles[0]!.contents;
  // Every file resolved, and the ones that put code in the bundle (tree-shaken modules contribute 0 bytes).
  const [output] = Object.values(result.metafile.outputs);
  const shipped = Object.entries(output!.inputs).filter(([f, i]) => f !== 'entry.ts' && i.bytesInOutput > 0).map(([f]) => f);
  return { gzipped: gzipSync(code, { level: 9 }).length, inputs: Object.keys(result.metafile.inputs).filter((f) => f !== 'entry.ts'), shipped };
}

const CORE = ['configure', 'getSession', 'getProviders', 'getCsrfToken', 'signIn', 'signOut', 'updateSession', 'createSessionStore', 'AuthClientError'];
const PASSKEY = ['registerPasskey', 'signInWithPasskey', 'passkeysSupported'];
const RECOVERY = ['requestPasswordReset', 'resetPassword'];
const ORGANIZATIONS = ['switchOrganization'];
const CHANGE = ['changePassword'];

describe('authchart/client bundle', () => {
  it(`stays under ${BUDGET} bytes gzipped without the passkey helpers`, async () => {
    const core = await bundle(CORE);
    const full = await bundle([...CORE, ...PASSKEY]);
    console.log(`authchart/client: ${core.gzipped} B gzipped (budget ${BUDGET}), ${full.gzipped} B with passkeys`);
    expect(core.gzipped).toBeLessThan(BUDGET);
    // The passkey module is left out when unused, and in when used.
    expect(core.shipped).not.toContain('src/client/passkey.ts');
    expect(full.shipped).toContain('src/client/passkey.ts');
    // So is password recovery.
    expect(core.shipped).not.toContain('src/client/recovery.ts');
    expect((await bundle([...CORE, ...RECOVERY])).shipped).toContain('src/client/recovery.ts');
    // And the organization switch.
    expect(core.shipped).not.toContain('src/client/organizations.ts');
    expect((await bundle([...CORE, ...ORGANIZATIONS])).shipped).toContain('src/client/organizations.ts');
    // And the change of password.
    expect(core.shipped).not.toContain('src/client/password-change.ts');
    expect((await bundle([...CORE, ...CHANGE])).shipped).toContain('src/client/password-change.ts');
  });

  it('takes in nothing but its own files: no server code, no package', async () => {
    const { inputs } = await bundle([...CORE, ...PASSKEY, ...RECOVERY, ...ORGANIZATIONS, ...CHANGE]);
    expect(inputs.sort()).toEqual(['src/client/core.ts', 'src/client/email-change.ts', 'src/client/index.ts', 'src/client/organizations.ts', 'src/client/passkey.ts', 'src/client/password-change.ts', 'src/client/recovery.ts', 'src/client/signup.ts', 'src/client/store.ts']);
  });
});
