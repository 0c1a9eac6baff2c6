// A TCP fault proxy for the fault suite: sits between authchart and a real PostgreSQL or Redis and, on command,
// passes bytes through, resets connections, refuses new ones, swallows everything (blackhole) or delays it.
import net from 'node:net';

export type FaultMode = 'pass' | 'reset' | 'refuse' | 'blackhole' | { latency: number };

export interface FaultProxy {
  port: number;
  mode: FaultMode;
  close(): Promise<void>;
}

export async function faultProxy(target: { host: string; port: number }): Promise<FaultProxy> {
  const sockets = new Set<net.Socket>();
  const state: { mode: FaultMode } = { mode: 'pass' };
  const server = net.createServer((client) => {
    sockets.add(client);
    client.on('close', () => sockets.delete(client));
    client.on('error', () => {});
    if (state.mode === 'refuse' || state.mode === 'reset') return void client.resetAndDestroy();
    const upstream = net.connect(target.port, target.host);
    sockets.add(upstream);
    upstream.on('close', () => sockets.delete(upstream));
    upstream.on('error', () => client.destroy());
    client.on('close', () => upstream.destroy());
    const relay = (from: net.Socket, to: net.Socket) =>
      from.on('data', (chunk) => {
        const mode = state.mode;
        if (mode === 'blackhole') return;
        if (mode === 'reset' || mode === 'refuse') return void (client.resetAndDestroy(), upstream.destroy());
        if (typeof mode === 'object') setTimeout(() => to.writable && to.write(chunk), mode.latency);
        else to.write(chunk);
      });
    relay(client, upstream);
    relay(upstream, client);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    port: (server.address() as net.AddressInfo).port,
    get mode() {
      return state.mode;
    },
    set mode(m: FaultMode) {
      state.mode = m;
      if (m === 'reset') for (const s of sockets) s.resetAndDestroy();
    },
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise((r) => server.close(r));
    },
  };
}
