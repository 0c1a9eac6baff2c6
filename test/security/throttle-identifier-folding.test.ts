// The per-account password limit against the database's own case folding (issue 46): an app that looks users up
// with PostgreSQL's `lower()` or `citext` treats `KİM@…` (U+0130) as `kim@…`, so the limit must count both as one
// account. Checked over HTTP with an `authorize` that asks the real database, and code point by code point against
// `lower()` under the default (libc) collation and an ICU one: never a guess of how the database folds.
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { accountKey } from '../../src/core/credentials-identifier.js';
import type { AuthConfig } from '../../src/core/options.js';
import { Credentials } from '../../src/providers/credentials.js';
import { serveLoopback, type LoopbackApp } from '../support/loopback-app.js';

const DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const SECRET = 'throttle-folding-secret-0123456789abcdef';
const KIM = 'kim@example.com';

let db: pg.Client;
beforeAll(async () => {
  db = new pg.Client({ connectionString: DATABASE_URL });
  await db.connect();
});
afterAll(async () => {
  await db?.end();
});

const apps: LoopbackApp[] = [];
afterEach(async () => {
  while (apps.length) await apps.pop()!.close();
});

// Spellings of kim's address that `lower()` in PostgreSQL (libc collation) resolves to `kim@example.com`, each
// different for every other fold the limit already applies (case, NFKC): only the dotted capital I tells them apart.
const SPELLINGS = ['K\u0130M@EXAMPLE.COM', 'k\u0130m@example.com', 'KI\u0307M@example.com', 'k\u0130M@Example.com', 'ki\u0307m@example.com'];

describe('the per-account limit under the dotted capital I (U+0130)', () => {
  it('the database takes every spelling for kim (the premise of the attack)', async () => {
    for (const spelling of SPELLINGS.slice(0, 4)) {
      const { rows } = await db.query<{ same: boolean }>('SELECT lower($1) = $2 AS same', [spelling.normalize('NFKC'), KIM]);
      expect(rows[0]!.same, spelling).toBe(true);
    }
  });

  it('lets at most the limit (10) of 30 guesses in all spellings reach the lookup of one account', async () => {
    const reached: string[] = [];
    const provider = Credentials({
      credentials: { email: { label: 'Email', type: 'email' }, password: { label: 'Password', type: 'password' } },
      // The app's lookup, as apps write it: the database folds the address.
      authorize: async (c) => {
        const { rows } = await db.query<{ found: boolean }>('SELECT lower($1) = $2 AS found', [String(c.email), KIM]);
        if (rows[0]!.found) reached.push(String(c.email));
        return null;
      },
    });
    const app = await serveLoopback({ secret: SECRET, trustHost: true, providers: [provider], throttle: { enabled: true } } as AuthConfig);
    apps.push(app);
    const statuses: number[] = [];
    for (let i = 0; i < 30; i++) {
      const email = i < 10 ? KIM : SPELLINGS[i % SPELLINGS.length]!;
      statuses.push((await app.postForm('/auth/callback/credentials', { email, password: `guess-${i}` })).status);
    }
    expect(reached.length).toBeLessThanOrEqual(10);
    expect(statuses.slice(10).every((s) => s === 429)).toBe(true);
  });
});

/** Every code point but the surrogates, in batches the database lowers at once. */
function* codePointBatches(size: number): Generator<string[]> {
  let batch: string[] = [];
  for (let cp = 1; cp <= 0x10ffff; cp++) {
    if (cp >= 0xd800 && cp <= 0xdfff) continue;
    batch.push(String.fromCodePoint(cp));
    if (batch.length === size) {
      yield batch;
      batch = [];
    }
  }
  if (batch.length) yield batch;
}

describe('the account key is at least as coarse as PostgreSQL lower(), code point by code point', () => {
  for (const collation of ['default', 'und-x-icu']) {
    it(`under the ${collation} collation`, async () => {
      const { rows: present } = await db.query('SELECT 1 FROM pg_collation WHERE collname = $1', [collation]);
      // The default collation always exists; the ICU one only in a PostgreSQL built with ICU (Debian's is).
      expect(collation === 'default' || present.length === 1).toBe(true);
      const wrong: string[] = [];
      for (const batch of codePointBatches(50_000)) {
        const { rows } = await db.query<{ l: string }>(
          `SELECT lower(x COLLATE "${collation}") AS l FROM unnest($1::text[]) WITH ORDINALITY AS t(x, n) ORDER BY n`,
          [batch],
        );
        batch.forEach((c, i) => {
          if (accountKey(c) !== accountKey(rows[i]!.l)) wrong.push(`U+${c.codePointAt(0)!.toString(16).toUpperCase()}`);
        });
      }
      expect(wrong).toEqual([]);
    }, 60_000);
  }
});
