// Run in a child process by module-level.test.ts: makes every random, timed and I/O primitive throw, as a worker
// does at module level, then imports each module named on the command line and prints what failed, as JSON.
import { createRequire, syncBuiltinESMExports } from 'node:module';
import { pathToFileURL } from 'node:url';

const require = createRequire(import.meta.url);
const refused = (name: string) => () => {
  throw new Error(`module level: ${name} called`);
};
const nodeCrypto = require('node:crypto') as Record<string, unknown>;
for (const name of ['randomBytes', 'randomUUID', 'randomInt', 'randomFillSync', 'generateKeyPairSync', 'createSecretKey']) {
  nodeCrypto[name] = refused(`node:crypto ${name}`);
}
const nodeTimers = require('node:timers') as Record<string, unknown>;
for (const name of ['setTimeout', 'setInterval', 'setImmediate']) nodeTimers[name] = refused(`node:timers ${name}`);
// The TypeScript loader reads files through node:fs too, so a file-system call is refused only when it comes
// straight from a module under src/.
const SRC = `${process.cwd()}/src/`;
const nodeFs = require('node:fs') as Record<string, (...args: unknown[]) => unknown>;
for (const name of ['readFileSync', 'readFile', 'existsSync', 'statSync', 'openSync', 'readdirSync', 'writeFileSync']) {
  const original = nodeFs[name];
  nodeFs[name] = function (this: unknown, ...args: unknown[]) {
    const caller = new Error().stack?.split('\n')[2] ?? '';
    if (caller.includes(SRC)) throw new Error(`module level: node:fs ${name} called`);
    return original.apply(this, args);
  };
}
syncBuiltinESMExports();

const saved = {
  getRandomValues: crypto.getRandomValues,
  randomUUID: crypto.randomUUID,
  setTimeout: globalThis.setTimeout,
  setInterval: globalThis.setInterval,
  dateNow: Date.now,
  mathRandom: Math.random,
  fetch: globalThis.fetch,
};
crypto.getRandomValues = refused('crypto.getRandomValues') as typeof crypto.getRandomValues;
crypto.randomUUID = refused('crypto.randomUUID') as typeof crypto.randomUUID;
globalThis.setTimeout = refused('setTimeout') as unknown as typeof setTimeout;
globalThis.setInterval = refused('setInterval') as unknown as typeof setInterval;
Date.now = refused('Date.now');
Math.random = refused('Math.random');
globalThis.fetch = refused('fetch') as typeof fetch;

const failures: { file: string; error: string }[] = [];
for (const file of process.argv.slice(2)) {
  try {
    await import(pathToFileURL(file).href);
  } catch (error) {
    failures.push({ file, error: error instanceof Error ? `${error.message}\n${error.stack?.split('\n').slice(1, 4).join('\n')}` : String(error) });
  }
}
Object.assign(crypto, { getRandomValues: saved.getRandomValues, randomUUID: saved.randomUUID });
Object.assign(globalThis, { setTimeout: saved.setTimeout, setInterval: saved.setInterval, fetch: saved.fetch });
Date.now = saved.dateNow;
Math.random = saved.mathRandom;
process.stdout.write(JSON.stringify(failures));
