// The two app instances of a token testbed served over HTTP on 127.0.0.1, so the OP can reach them (back-channel
// logout): instance 0 and 1 on their own ports. What each received is recorded.
import { createServer, type Server } from 'node:http';
import { writeWebResponse } from '../../../src/http/integrations/node.js';
import type { TokenTestbed } from './harness.js';

export interface ServedApps {
  urls: [string, string];
  /** The bodies of the back-channel logout requests each instance received. */
  received: string[];
  setTestbed(t: TokenTestbed): void;
  close(): Promise<void>;
}

export async function serveApps(): Promise<ServedApps> {
  let testbed: TokenTestbed | undefined;
  const received: string[] = [];
  const servers: Server[] = [0, 1].map((i) =>
    createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks).toString();
        if (req.url?.includes('/backchannel-logout/')) received.push(body);
        const request = new Request(`http://localhost:3000${req.url}`, { method: req.method, headers: req.headers as Record<string, string>, body: req.method === 'POST' ? body : undefined });
        void testbed!.apps[i]!.handle(request).then((response) => writeWebResponse(res, response));
      });
    }),
  );
  const ports = await Promise.all(servers.map((s) => new Promise<number>((resolve) => s.listen(0, '127.0.0.1', () => resolve((s.address() as { port: number }).port)))));
  return {
    urls: [`http://127.0.0.1:${ports[0]}`, `http://127.0.0.1:${ports[1]}`],
    received,
    setTestbed: (t) => void (testbed = t),
    close: () => Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve)))).then(() => undefined),
  };
}
