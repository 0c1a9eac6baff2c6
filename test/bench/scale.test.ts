// `npm run bench:scale` with tiny sizes, so the harness never rots: every path runs against the seeded data and
// yields figures, every statement the paths sent is explained, and SCALE.md renders from them.
import { describe, expect, it } from 'vitest';
import { PATHS, benchScale, growth, renderScale } from '../../bench/scale.js';

describe('bench:scale', () => {
  it('seeds two sizes, times every path, explains each statement and renders SCALE.md', async () => {
    const result = await benchScale({ databaseUrl: process.env.DATABASE_URL!, sizes: [300, 600], ops: 3, warmup: 1 });
    for (const path of PATHS) {
      expect(result.paths[path]).toHaveLength(2);
      for (const s of result.paths[path]) expect(s.median).toBeGreaterThan(0);
      expect(Number.isFinite(growth(result.paths[path]))).toBe(true);
    }
    // Each path sent statements, and each was explained (a session check is one statement, the prune six).
    const byPath = (p: string) => result.explained.filter((e) => e.path === p);
    expect(byPath('database session check')).toHaveLength(1);
    expect(byPath('prune job (nothing expired)').map((e) => e.sql)).toEqual(expect.arrayContaining(['DELETE FROM sessions WHERE expires <= $1']));
    for (const p of PATHS) expect(byPath(p).length, p).toBeGreaterThan(0);
    expect(result.expiresIndex.prune.with.median).toBeGreaterThan(0);
    const markdown = renderScale(result);
    for (const heading of ['# Scale', '## The index on sessions.expires', '## Plans at 600 users']) expect(markdown).toContain(heading);
    expect(markdown).not.toMatch(/NaN|undefined/);
  }, 120_000);
});
