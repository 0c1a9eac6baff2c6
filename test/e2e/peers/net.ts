// Loopback-only listen/close helpers shared by the peer harnesses: every peer binds 127.0.0.1, never all interfaces.
import { createServer, type Server as HttpServer } from 'node:http';
import { Socket, type Server as NetServer } from 'node:net';

/** The only address a test peer may bind. */
export const LOOPBACK = '127.0.0.1';

/**
 * Listens on 127.0.0.1 (port 0 picks a free one) and resolves with the bound port.
 *
 * @example const port = await listenLoopback(http.createServer(handler));
 */
export function listenLoopback(server: NetServer, port = 0): Promise<number> {
  return new Promise((resolve, reject) => {
    const onError = (error: Error) => reject(error);
    server.once('error', onError);
    server.listen(port, LOOPBACK, () => {
      server.off('error', onError);
      const address = server.address();
      if (address === null || typeof address === 'string') reject(new Error('listenLoopback: no TCP address'));
      else resolve(address.port);
    });
  });
}

/**
 * Closes an http server and drops its keep-alive sockets, so a stopped peer leaves no handle behind.
 */
export function closeHttpServer(server: HttpServer): Promise<void> {
  return new Promise((resolve, reject) => {
    if (!server.listening) {
      resolve();
      return;
    }
    server.close((error) => (error ? reject(error) : resolve()));
    // close() alone waits for in-flight keep-alive sockets (e.g. the global fetch's pool).
    server.closeAllConnections();
  });
}

/**
 * A port that was free a moment ago on 127.0.0.1, for a peer whose URL must be known before it starts (an app's
 * redirect URI registered with the OP). Another process could take it in between; tests accept that tiny race.
 */
export async function freePort(): Promise<number> {
  const probe = createServer();
  const port = await listenLoopback(probe);
  await closeHttpServer(probe);
  return port;
}

/**
 * Whether something listens at `url`'s host and port (`defaultPort` when the URL names none): a TCP probe, no
 * protocol, at most `timeoutMs`.
 *
 * @example if (!(await listening('redis://127.0.0.1:6379', 6379))) throw new Error('start Redis')
 */
export function listening(url: string, defaultPort: number, timeoutMs = 1000): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = new Socket();
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('error', () => done(false));
    socket.connect(Number(port || defaultPort), hostname.replace(/^\[|\]$/g, ''), () => done(true));
  });
}
