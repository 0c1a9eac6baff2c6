// `npm run bench:scale` with tiny sizes, so the harness never rots: every path runs against the seeded data and
// yields figures, every statement the paths sent is explained, and SCALE.md renders from them.
import { describe, expect, it } from 'vitest';
import { PATHS, benchScale, growth, renderScale } from '../../bench/scale.js';

describe('bench:scale', () => {
  it('seeds two sizes, times every path, explains each statement and renders SCALE.md', async () => {
    const result = await benchScale({ databaseUrl: process.env.DATABASE_URL!, sizes: [300, 600], ops: 3, warmup: 1, rounds: 2 });
    for (const path of PATHS) {
      expect(result.paths[path]).toHaveLength(2);
      for (const s of result.paths[path]) expect(s.median).toBeGreaterThan(0);
      expect(Number.isFinite(growth(result.paths[path]))).toBe(true);
    }
    // Each path sent statements, and each was explained (a session check is one statement, the prune eight).
    const byPath = (p: string) => result.explained.filter((e) => e.path === p);
    const sql = (p: string) => byPath(p).map((e) => e.sql);
    expect(byPath('database session check')).toHaveLength(1);
    // With an active organization, the session's own statement reads the membership too: one statement, no other.
    expect(sql('org-gated session check (requireOrganization)')).toEqual([expect.stringMatching(/FROM sessions s JOIN users u .* LEFT JOIN memberships m /s)]);
    // The sign-ins write their activity records (with the session row, one statement).
    for (const p of ['password sign-in', 'link sign-in (request + callback)']) expect(sql(p).some((s) => /INSERT INTO activity/.test(s)), p).toBe(true);
    expect(sql('list a user’s activity (first page)')).toEqual(expect.arrayContaining([expect.stringMatching(/FROM activity WHERE user_id = \$1/)]));
    expect(sql('list an organization’s members')).toEqual(expect.arrayContaining([expect.stringMatching(/FROM memberships WHERE organization_id = \$1 ORDER BY/)]));
    // Every statement the prune job runs, the activity log's retention and the webhook outbox included.
    expect(sql('prune job (nothing expired)')).toEqual(
      expect.arrayContaining(['DELETE FROM sessions WHERE expires <= $1', 'DELETE FROM activity WHERE at < $1', "DELETE FROM webhook_outbox WHERE status = 'delivered' AND delivered_at <= $1"]),
    );
    expect(byPath('prune job (nothing expired)')).toHaveLength(8);
    for (const p of PATHS) expect(byPath(p).length, p).toBeGreaterThan(0);
    expect(result.expiresIndex.prune.with.median).toBeGreaterThan(0);
    expect(result.deleteCost).toHaveLength(2);
    for (const d of result.deleteCost) expect(d.samples).toBeGreaterThan(0);
    // The session check's statement explained with BUFFERS at each size: it touches pages (a hit or a read each), and
    // the relations it reads have their sizes.
    expect(result.checkCost).toHaveLength(2);
    for (const c of result.checkCost) expect(c.sharedHit + c.sharedRead).toBeGreaterThan(0);
    expect(result.relations.map((sizes) => sizes.map((rel) => rel.name))).toEqual([['sessions', 'sessions_pkey', 'users', 'users_pkey'], ['sessions', 'sessions_pkey', 'users', 'users_pkey']]);
    for (const sizes of result.relations) for (const rel of sizes) expect(rel.bytes, rel.name).toBeGreaterThan(0);
    expect(result.sharedBuffers).toMatch(/^\d+[kMG]B$/);
    const markdown = renderScale(result);
    for (const heading of ['# Scale', '## The index on sessions.expires', '## Where ending a user', "## Where the database session check's time goes", '## Plans at 600 users']) expect(markdown).toContain(heading);
    expect(markdown).toContain('activity records');
    expect(markdown).not.toMatch(/NaN|undefined/);
  }, 180_000);
});
