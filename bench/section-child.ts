// One section of `npm run bench` in a process of its own (bench/suite.ts, `isolate`): runs it and prints its figures
// as the last line of stdout, as JSON. A section then starts from a fresh heap and JIT, not from whatever the
// sections before it left (the HTTP check shared decodeSync's compiled code with the in-process check before it).
//   argv: <section> <settings: full | smoke>   env: DATABASE_URL, REDIS_URL as the parent has them
import { FULL, SMOKE, SECTIONS, runBenchmarks, type Section } from './suite.js';

const [section, settingsName] = process.argv.slice(2);
if (!(SECTIONS as readonly string[]).includes(section ?? '')) throw new Error(`unknown section "${section}"`);
const settings = settingsName === 'smoke' ? SMOKE : FULL;
const results = await runBenchmarks(settings, { log: (line) => console.error(line), databaseUrl: process.env.DATABASE_URL, only: [section as Section] });
process.stdout.write(`\n${JSON.stringify({ figures: results[section as Section] ?? null, failure: results.failures[section as Section] ?? null })}\n`);
process.exit(0);
