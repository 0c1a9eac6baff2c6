// The published build (npm pack runs it through `prepack`): one bundle per package entry, ESM with .d.ts, and the
// lazily loaded parts (flow runtime, each flow's machine, the database strategy, pages, devtools routes, the Node
// bridge) kept as chunks of their own, so an app loads them on first use. Dependencies stay imports.
import { defineConfig } from 'tsdown';

export default defineConfig({
  entry: {
    index: 'src/index.ts',
    node: 'src/node.ts',
    flow: 'src/flow.ts',
    jwt: 'src/jwt.ts',
    'providers/index': 'src/providers/index.ts',
    'adapters/index': 'src/adapters/index.ts',
    'adapters/postgres/index': 'src/adapters/postgres/index.ts',
    'devtools/index': 'src/devtools/index.ts',
    'client/index': 'src/client/index.ts',
    // `npx authchart`
    'cli/bin': 'src/cli/bin.ts',
  },
  outDir: 'dist',
  format: 'esm',
  platform: 'node',
  target: 'node20',
  dts: true,
  sourcemap: false,
  clean: true,
  treeshake: true,
  hash: true,
  tsconfig: 'tsconfig.build.json',
});
