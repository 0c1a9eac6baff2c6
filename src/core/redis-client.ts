// The two Redis clients authchart accepts, told apart by shape: ioredis and node-redis (the `redis` package). Their
// APIs differ, and a node-redis client used as if it were ioredis fails silently in places (a throttle that never
// counts), so every Redis store asks here which one it holds.

interface ClientShape {
  call?: (...args: string[]) => Promise<unknown>;
  sendCommand?: (args: string[]) => Promise<unknown>;
  defineCommand?: unknown;
  isOpen?: unknown;
}

/** Whether `client` is a node-redis client (v4 or later): `sendCommand` and `isOpen`, and none of ioredis's `defineCommand`. */
export function isNodeRedis(client: unknown): boolean {
  const c = client as ClientShape | null;
  return typeof c?.sendCommand === 'function' && c !== null && 'isOpen' in c && typeof c.defineCommand !== 'function';
}

/** Sends one raw command (`['GET', key]`) through either client; a TypeError for anything else. */
export function redisCommandSender(client: unknown, who: string): (args: string[]) => Promise<unknown> {
  const c = client as ClientShape | null;
  if (isNodeRedis(client)) return (args) => c!.sendCommand!(args);
  if (typeof c?.call === 'function') return (args) => c.call!(...args);
  throw new TypeError(`${who} needs an ioredis client or a connected node-redis client.`);
}
