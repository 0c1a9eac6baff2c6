import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import { testServices } from './test/setup/defaults.js';

const src = (path: string) => fileURLToPath(new URL(`./src/${path}`, import.meta.url));

export default defineConfig({
  resolve: {
    // The package's own entries resolve to src/ (as tsconfig.json `paths` does for tsc and tsx), so the examples
    // and their tests import 'authchart', 'authchart/devtools', ... exactly as a user would, without a build.
    alias: [
      { find: /^authchart$/, replacement: src('index.ts') },
      { find: /^authchart\/node$/, replacement: src('node.ts') },
      { find: /^authchart\/(flow|jwt)$/, replacement: src('$1.ts') },
      { find: /^authchart\/providers\/(oidc|email|webauthn|credentials)$/, replacement: src('providers/entries/$1.ts') },
      // A catalogue preset's subpath (authchart/providers/github): the preset's module.
      { find: /^authchart\/providers\/([\w-]+)$/, replacement: src('providers/catalogue/$1.ts') },
      { find: /^authchart\/(providers|devtools|adapters|adapters\/postgres|client)$/, replacement: src('$1/index.ts') },
    ],
  },
  test: {
    include: ['test/**/*.test.ts'],
    // The services at their local defaults when no variable names them; the global setup checks they answer (and
    // ends the run at once, naming the one that does not) and installs the sub-projects the tests run from.
    env: testServices(process.env),
    globalSetup: ['test/setup/environment.ts'],
    testTimeout: 20_000,
    hookTimeout: 60_000,
    pool: 'forks',
  },
});
