// `npx tsx bench/otel-off.ts [rounds]`: what OpenTelemetry support costs an app that registers no tracer provider.
// Fresh processes, alternating: @opentelemetry/api hidden (as if not installed) vs installed with no provider;
// each figure is the median CPU of one credentials sign-in, and the ratio compares the two sides of the same round.
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const rounds = Number(process.argv[2] ?? 5);

function side(hidden: boolean): number {
  const args = ['--import', 'tsx', ...(hidden ? ['--import', './test/core/fixtures/without-otel.mjs'] : []), 'bench/otel-off-child.ts'];
  const out = JSON.parse(execFileSync(process.execPath, args, { cwd: ROOT, encoding: 'utf8' }).trim().split('\n').at(-1)!) as { api: string; medianCpuMs: number };
  if (out.api !== (hidden ? 'absent' : 'present')) throw new Error(`expected the API ${hidden ? 'absent' : 'present'}, got ${out.api}`);
  return out.medianCpuMs;
}

const ratios: number[] = [];
for (let r = 0; r < rounds; r += 1) {
  // Alternate which side goes first, so a machine that slows down mid-round does not favour one.
  const [absent, present] = r % 2 === 0 ? [side(true), side(false)] : ((p) => [side(true), p])(side(false));
  ratios.push(present / absent);
  console.log(`round ${r + 1}: API absent ${absent.toFixed(3)} ms, API present without provider ${present.toFixed(3)} ms CPU per sign-in (ratio ${(present / absent).toFixed(3)})`);
}
ratios.sort((a, b) => a - b);
console.log(`| OpenTelemetry API installed, no tracer provider, vs not installed (credentials sign-in CPU) | median ratio ${ratios[Math.floor(ratios.length / 2)].toFixed(3)} over ${rounds} rounds |`);
