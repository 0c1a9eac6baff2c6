// Nitro 2 configuration, with the server code under server/ as in a Nuxt app. The alias makes 'authchart' this
// repository's own source, so the example builds offline from a clone; in your app, `npm install authchart` and
// delete the alias: the app's code stays the same.
import { fileURLToPath } from 'node:url';
import { defineNitroConfig } from 'nitropack/config';

const repo = (path: string) => fileURLToPath(new URL(`../../src/${path}`, import.meta.url));

export default defineNitroConfig({
  compatibilityDate: '2026-11-01',
  srcDir: 'server',
  // authchart's source uses ES2022 (BigInt literals); Node 20 runs it as it is.
  esbuild: { options: { target: 'es2022' } },
  alias: {
    'authchart/providers': repo('providers/index.ts'),
    authchart: repo('index.ts'),
  },
});
