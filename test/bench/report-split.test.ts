// The cost split under section 1 of the bench results: a difference of medians timed apart, so it must never print
// a negative share, and only the check that opens its token is split against the decryption floor.
import { describe, expect, it } from 'vitest';
import { costSplit } from '../../bench/report.js';
import { SESSION_SIDES, type SessionCheckResult, type SessionFigures } from '../../bench/session-check.js';

const figure = (cpu: number): SessionFigures => {
  const s = (v: number) => ({ min: v, median: v, max: v, runs: 3 });
  return { opsPerSec: s(1e6 / cpu), cpuUsPerOp: s(cpu) };
};

function result(cpu: Partial<Record<(typeof SESSION_SIDES)[number], number>>): SessionCheckResult {
  const sides = {} as SessionCheckResult['sides'];
  for (const side of SESSION_SIDES) {
    const v = cpu[side];
    sides[side] = v === undefined ? { skipped: 'not run' } : { sequential: figure(v), inFlight: figure(v) };
  }
  return { sides, tokenChars: { authchart: 563 } };
}

describe('bench report: where a check’s CPU goes', () => {
  it('splits the uncached check against the decodeSync floor, and the cached one against h3 alone', () => {
    const lines = costSplit(result({ authchart: 6.8, 'authchart, token cache off': 21.1, 'floor: decodeSync (node:crypto)': 14.7, 'floor: h3 app.fetch, same JSON': 1.4 }));
    expect(lines).toHaveLength(2);
    expect(lines[0]).toContain('21.1 µs of CPU per check go with the token cache off');
    expect(lines[0]).toContain('5.00 µs the rest of authchart');
    expect(lines[1]).toContain('5.40 µs authchart (cache hit');
  });

  it('never prints a negative rest: parts timed apart that add up to more than the whole are called noise', () => {
    const lines = costSplit(result({ authchart: 1.2, 'authchart, token cache off': 15.5, 'floor: decodeSync (node:crypto)': 14.7, 'floor: h3 app.fetch, same JSON': 1.4 }));
    for (const line of lines) expect(line).not.toMatch(/-\d/);
    expect(lines[0]).toContain('no measurable rest');
    expect(lines[1]).toContain('no measurable rest');
  });

  it('says nothing without the h3 floor', () => {
    expect(costSplit(result({ authchart: 6.8, 'authchart, token cache off': 21.1, 'floor: decodeSync (node:crypto)': 14.7 }))).toEqual([]);
  });
});
