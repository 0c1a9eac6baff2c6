// Nitro 3 configuration. The alias makes 'authchart' this repository's own source, so the example builds offline
// from a clone; in your app, `npm install authchart` and delete the alias: the app's code stays the same.
import { fileURLToPath } from 'node:url';
import { defineNitroConfig } from 'nitro/config';

const repo = (path: string) => fileURLToPath(new URL(`../../src/${path}`, import.meta.url));

export default defineNitroConfig({
  compatibilityDate: '2026-11-01',
  alias: {
    'authchart/providers': repo('providers/index.ts'),
    authchart: repo('index.ts'),
  },
});
