// What the webhook tests share: activity records made here (the activity log's own code is not needed), a
// PostgreSQL schema per test run, and a receiver on 127.0.0.1 that checks every request with the standardwebhooks
// library itself, as an app's receiver would.
import { randomBytes, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import pg from 'pg';
import { Webhook } from 'standardwebhooks';
import type { ActivityKind, ActivityRecord } from '../../src/activity/types.js';
import { closeHttpServer, listenLoopback } from '../e2e/peers/net.js';

/** A record as the activity log would write it, with overrides. */
export function activityRecord(overrides: Partial<ActivityRecord> = {}): ActivityRecord {
  return {
    id: `act_${randomUUID()}`,
    kind: 'signIn.succeeded' satisfies ActivityKind,
    at: new Date(),
    userId: 'user-1',
    method: 'credentials',
    provider: 'credentials',
    ip: '203.0.113.7',
    userAgent: 'Mozilla/5.0 (test)',
    correlationId: randomUUID(),
    ...overrides,
  };
}

/** A fresh Standard Webhooks secret: whsec_ and 32 random bytes. */
export const newSecret = (): string => `whsec_${randomBytes(32).toString('base64')}`;

/** Pools whose connections see one new schema each; `end()` drops them all. */
export function schemas(url = process.env.DATABASE_URL!) {
  const admin = new pg.Pool({ connectionString: url, max: 2 });
  const made: string[] = [];
  const pools: pg.Pool[] = [];
  return {
    async create(): Promise<string> {
      const schema = `authchart_wh_${process.pid}_${randomBytes(4).toString('hex')}`;
      await admin.query(`CREATE SCHEMA ${schema}`);
      made.push(schema);
      return schema;
    },
    pool(schema: string, max = 4): pg.Pool {
      const pool = new pg.Pool({ connectionString: url, options: `-c search_path=${schema}`, max });
      pools.push(pool);
      return pool;
    },
    async end(): Promise<void> {
      await Promise.all(pools.map((p) => p.end()));
      for (const s of made) await admin.query(`DROP SCHEMA IF EXISTS ${s} CASCADE`);
      await admin.end();
    },
  };
}

/** One request the receiver got: whether it verified, and the ids and bodies. */
export interface Received {
  id: string;
  timestamp: string;
  signature: string;
  body: string;
  verified: boolean;
  error?: string;
}

/** A receiver: verifies each request with `Webhook.verify`; `answer` picks the status (default 204 when verified, 401 when not). */
export async function receiver(secret: string, answer?: (r: Received, req: IncomingMessage, res: ServerResponse) => number | 'handled') {
  const received: Received[] = [];
  const webhook = new Webhook(secret);
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const r: Received = { id: String(req.headers['webhook-id']), timestamp: String(req.headers['webhook-timestamp']), signature: String(req.headers['webhook-signature']), body, verified: false };
      try {
        webhook.verify(body, req.headers as Record<string, string>);
        r.verified = true;
      } catch (error) {
        r.error = (error as Error).message;
      }
      received.push(r);
      const status = answer ? answer(r, req, res) : r.verified ? 204 : 401;
      if (status === 'handled') return;
      res.statusCode = status;
      res.end();
    });
  });
  const port = await listenLoopback(server);
  return { url: `http://127.0.0.1:${port}/hooks`, received, close: () => closeHttpServer(server) };
}
