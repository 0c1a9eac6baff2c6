// A stand-in for an e-mail vendor's HTTP API on 127.0.0.1: records every request as the vendor would receive it
// (method, path, headers, parsed JSON or multipart form) and answers with whatever the test scripted for it.
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { closeHttpServer, listenLoopback } from './net.js';

export interface ReceivedApiRequest {
  method: string;
  /** Path and query, as sent. */
  path: string;
  headers: IncomingHttpHeaders;
  raw: string;
  /** The body parsed as JSON, when it was JSON. */
  json?: any;
  /** The body's fields, when it was a form (multipart or urlencoded). */
  form?: Record<string, string>;
}

export interface ApiAnswer {
  status: number;
  /** A value sent as JSON, or a string sent as is; absent for an empty body. */
  body?: unknown;
  headers?: Record<string, string>;
}

/** Decides the answer to one request; may be async (to look at the database while the sender waits, say). */
export type ApiScript = (req: ReceivedApiRequest) => ApiAnswer | Promise<ApiAnswer>;

export interface MailApiFake {
  /** `http://127.0.0.1:<port>`: the sender's `baseUrl`. */
  readonly url: string;
  /** Every request received, oldest first. */
  readonly requests: ReceivedApiRequest[];
  /** Sets how the next requests are answered (until set again). */
  answer(script: ApiScript): void;
  /** Never answers (the socket stays open), for timeouts. */
  hang(): void;
  stop(): Promise<void>;
}

async function parse(req: ReceivedApiRequest): Promise<void> {
  const type = String(req.headers['content-type'] ?? '');
  if (type.startsWith('application/json')) req.json = JSON.parse(req.raw);
  else if (type.startsWith('multipart/form-data') || type.startsWith('application/x-www-form-urlencoded')) {
    // The platform's own multipart parser, so the fake reads the form exactly as a standard server would.
    const form = await new Response(req.raw, { headers: { 'content-type': type } }).formData();
    req.form = Object.fromEntries([...form.entries()].map(([k, v]) => [k, String(v)]));
  }
}

/**
 * Starts a fake vendor API. Unscripted, it answers 500 so a test that forgot to script it fails loudly.
 *
 * @example
 * const api = await startMailApiFake();
 * api.answer(() => ({ status: 200, body: { id: 'm-1' } }));
 * Resend({ baseUrl: api.url, apiKey: 're_test' })
 */
export async function startMailApiFake(): Promise<MailApiFake> {
  const requests: ReceivedApiRequest[] = [];
  let script: ApiScript | 'hang' = () => ({ status: 500, body: { message: 'the fake was not scripted' } });
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        const entry: ReceivedApiRequest = { method: req.method ?? '', path: req.url ?? '', headers: req.headers, raw: Buffer.concat(chunks).toString('utf8') };
        requests.push(entry);
        if (script === 'hang') return;
        try {
          await parse(entry);
          const out = await script(entry);
          const isText = typeof out.body === 'string';
          const body = out.body === undefined ? '' : isText ? (out.body as string) : JSON.stringify(out.body);
          const headers = { ...(out.body === undefined ? {} : { 'content-type': isText ? 'text/plain' : 'application/json' }), ...out.headers };
          res.writeHead(out.status, headers).end(body);
        } catch (err) {
          res.writeHead(500, { 'content-type': 'text/plain' }).end(`fake failed: ${(err as Error).message}`);
        }
      })();
    });
  });
  const port = await listenLoopback(server);
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    answer(next) {
      script = next;
    },
    hang() {
      script = 'hang';
    },
    stop: () => closeHttpServer(server),
  };
}
