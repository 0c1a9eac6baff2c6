#!/usr/bin/env node
// The `authchart` executable (package.json "bin"): runs the command and exits, closing whatever the app's
// configuration opened (a database, a server). Running is its whole purpose, so it is the one module under src/
// with work at module level; the module-level checks leave it out.
import { runtimeEnv } from '../core/env.js';
import { main } from './index.js';

const code = await main(process.argv.slice(2), {
  out: (text) => void process.stdout.write(`${text}\n`),
  err: (text) => void process.stderr.write(`${text}\n`),
  env: runtimeEnv(),
  cwd: process.cwd(),
  stdin: async () => {
    const chunks: Buffer[] = [];
    for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks).toString('utf8');
  },
});
process.exit(code);
