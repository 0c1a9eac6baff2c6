// `npm run bench:scale`: runs bench/scale.ts at 10k, 100k and 1M users (or `--sizes a,b,c`) and writes bench/SCALE.md
// for the default sizes.
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { DEFAULT_SIZES, benchScale, renderScale } from './scale.js';

const arg = process.argv.indexOf('--sizes');
const sizes = arg > 0 ? process.argv[arg + 1]!.split(',').map(Number) : DEFAULT_SIZES;
if (sizes.some((n) => !Number.isInteger(n) || n < 100)) throw new Error('--sizes takes whole numbers of users, at least 100 each');
const result = await benchScale({
  databaseUrl: process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test',
  sizes,
  ops: 200,
  warmup: 20,
  log: (line) => console.log(line),
});
const markdown = renderScale(result);
console.log(`\n${markdown}`);
if (sizes.join() === DEFAULT_SIZES.join()) {
  writeFileSync(fileURLToPath(new URL('./SCALE.md', import.meta.url)), markdown);
  console.log('Wrote bench/SCALE.md');
} else console.log('Other sizes than the default: bench/SCALE.md left as it was.');
