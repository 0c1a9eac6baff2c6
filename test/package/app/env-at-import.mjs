// Run by env-at-import.test.ts in the installed app: imports each entry named on the command line while every read
// of the environment and of the terminal (process.stdout.isTTY) from outside Node's own loader is recorded, and the
// clock throws. Prints the reads as JSON: each one is what Deno refuses without --allow-env.
const reads = [];
const caller = () => (new Error().stack?.split('\n')[3] ?? '').trim();
const outside = (at) => at !== '' && !at.includes('(node:') && !at.startsWith('at node:');
const env = process.env;
process.env = new Proxy(env, {
  get(target, key) {
    const at = caller();
    if (typeof key === 'string' && outside(at)) reads.push(`env ${key} ${at}`);
    return Reflect.get(target, key);
  },
});
const isTTY = Object.getOwnPropertyDescriptor(process.stdout, 'isTTY');
Object.defineProperty(process.stdout, 'isTTY', {
  configurable: true,
  get() {
    const at = caller();
    if (outside(at)) reads.push(`stdout.isTTY ${at}`);
    return isTTY?.value;
  },
});
const now = Date.now;
Date.now = () => {
  throw new Error('module level: Date.now called');
};
for (const entry of process.argv.slice(2)) {
  try {
    await import(entry);
  } catch (error) {
    reads.push(`${entry}: ${error instanceof Error ? error.message : String(error)}`);
  }
}
Date.now = now;
process.env = env;
process.stdout.write(JSON.stringify(reads));
