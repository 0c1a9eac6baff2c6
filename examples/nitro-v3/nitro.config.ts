// Nitro 3 configuration. The alias makes 'authchart' this repository's own source, so the example builds offline
// from a clone; in your app, `npm install authchart` and delete the alias: the app's code stays the same.
import { fileURLToPath } from 'node:url';
import { defineNitroConfig } from 'nitro/config';

const repo = (path: string) => fileURLToPath(new URL(`../../src/${path}`, import.meta.url));

export default defineNitroConfig({
  compatibilityDate: '2026-11-01',
  alias: {
    'authchart/providers': repo('providers/index.ts'),
    'authchart/adapters/postgres': repo('adapters/postgres/index.ts'),
    // pg's optional native binding, which no preset needs: an empty module, so every bundle resolves it.
    'pg-native': fileURLToPath(new URL('pg-native.ts', import.meta.url)),
    authchart: repo('index.ts'),
  },
});
