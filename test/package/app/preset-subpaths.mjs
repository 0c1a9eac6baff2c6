// Run by provider-subpaths.test.ts in the app that installed the packed tarball: imports every preset subpath
// (authchart/providers/<file>, one per file in dist/providers/ that is not a kind's entry) and the barrel, and prints,
// per subpath, its export names and whether its default export builds the same provider as the barrel's factory of
// that name, for the same options (compared as JSON: ids, endpoints, checks, params, styles).
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const KINDS = new Set(['index', 'oidc', 'email', 'webauthn', 'credentials']);
const dist = join(dirname(fileURLToPath(import.meta.resolve('authchart'))), 'providers');
const names = readdirSync(dist).filter((f) => f.endsWith('.mjs')).map((f) => f.slice(0, -4)).filter((n) => !KINDS.has(n));
const barrel = await import('authchart/providers');
const options = { clientId: 'client-id', clientSecret: 'client-secret', issuer: 'https://issuer.example/tenant' };
const out = {};
for (const name of names) {
  const entry = await import(`authchart/providers/${name}`);
  const factory = entry.default;
  const same = typeof factory === 'function' && typeof barrel[factory.name] === 'function' && JSON.stringify(factory(options)) === JSON.stringify(barrel[factory.name](options));
  out[name] = { exports: Object.keys(entry), factory: factory?.name, same, id: factory?.(options).id };
}
process.stdout.write(JSON.stringify(out));
