// What a deployment configures about throttling (`throttle` in the configuration), its documented defaults, and
// the resolved form the HTTP layer reads. The counters themselves live in a store (store.ts) behind throttle.ts.

/**
 * One limit: at most `points` hits in `duration` seconds; past that, refused until the window ends, or for
 * `blockDuration` seconds when that is longer (a lock window).
 */
export interface ThrottleRule {
  points: number;
  /** Seconds of the counting window. */
  duration: number;
  /** Seconds a key stays refused once over the limit (default: the rest of the window). */
  blockDuration?: number;
}

/**
 * The limits authchart keeps. Client limits count per client address (IPv6 per /64).
 * - `signIn`: every request to the sign-in routes (POST signin/:id, GET|POST callback/:id, GET webauthn-options/:id).
 * - `credentialsAccount` / `credentialsClient`: failed credentials sign-ins per account (the submitted identifier)
 *   and per client; a successful sign-in gives its point back.
 * - `emailAddress` / `emailClient`: magic links requested per address and per client.
 * - `webauthnOptions`: WebAuthn ceremonies started per client.
 */
export type ThrottleLimit = 'signIn' | 'credentialsAccount' | 'credentialsClient' | 'emailAddress' | 'emailClient' | 'webauthnOptions' | 'secondFactorAccount';

export type ThrottleRules = Partial<Record<ThrottleLimit, ThrottleRule | false>>;

/** What a counter answers when it refuses: how long until the key may try again. */
export interface CounterRefusal {
  msBeforeNext: number;
}

/**
 * One limit's counters, keyed by client or account. `consume` adds a hit atomically and rejects with a
 * {@link CounterRefusal} (not an Error) over the limit, or with an Error when the store fails.
 */
export interface ThrottleCounter {
  consume(key: string, points?: number): Promise<unknown>;
  reward(key: string, points?: number): Promise<unknown>;
  delete(key: string): Promise<unknown>;
}

/**
 * A place to keep counters: `counter(name, rule)` is called once per limit (and per provider with its own rule).
 *
 * @example
 * const store: ThrottleStore = memoryThrottleStore()
 */
export interface ThrottleStore {
  /** For logs: `memory`, `redis`, `postgres`. */
  readonly kind: string;
  counter(name: string, rule: ThrottleRule): ThrottleCounter;
}

/**
 * The defaults, per limit. Failed passwords: 10 per account per 15 minutes, then 15 minutes locked (at most 40 an
 * hour, within ASVS 2.2.1's 100), and 100 per client per hour. Magic links: 5 per address and 20 per client per
 * hour. WebAuthn: 30 ceremonies per client per minute. Sign-in routes: 60 requests per client per minute.
 */
export const defaultThrottleRules: Readonly<Record<ThrottleLimit, ThrottleRule>> = Object.freeze({
  signIn: { points: 60, duration: 60 },
  credentialsAccount: { points: 10, duration: 15 * 60, blockDuration: 15 * 60 },
  credentialsClient: { points: 100, duration: 60 * 60 },
  emailAddress: { points: 5, duration: 60 * 60 },
  emailClient: { points: 20, duration: 60 * 60 },
  webauthnOptions: { points: 30, duration: 60 },
  // Codes at the second-factor stage, per user, across all their pending sign-ins (each pending one also dies after
  // `secondFactor.maxAttempts`): a stolen password buys 10 guesses per 15 minutes, then 15 minutes locked.
  secondFactorAccount: { points: 10, duration: 15 * 60, blockDuration: 15 * 60 },
});

/** What happens to a sign-in when the store cannot answer: `closed` refuses it (503), `open` lets it through. */
export type StoreDownPolicy = 'open' | 'closed';

/**
 * The `throttle` option.
 *
 * @example
 * throttle: {
 *   store: redisThrottleStore(new Redis(process.env.REDIS_URL, { enableOfflineQueue: false })),
 *   rules: { emailAddress: { points: 3, duration: 900 } },
 *   providers: { 'staff-login': { credentialsAccount: { points: 5, duration: 3600, blockDuration: 3600 } } },
 * }
 */
export interface ThrottleOptions {
  /** On by default in production (NODE_ENV=production), off otherwise; `true`/`false` decides either way. */
  enabled?: boolean;
  /** Where counters live: in this process's memory by default; Redis or PostgreSQL for several instances. */
  store?: ThrottleStore;
  /** Changes to the defaults; `false` turns a limit off. */
  rules?: ThrottleRules;
  /** Per-provider changes, over `rules`: `{ [providerId]: { credentialsAccount: {...} } }`. */
  providers?: Record<string, ThrottleRules>;
  /**
   * When the store fails or does not answer in `timeout`: `closed` refuses, `open` lets through (a warning is
   * logged either way). A string applies to every limit; the default is `closed` for the credentials limits and
   * `open` for the others.
   */
  onStoreError?: StoreDownPolicy | Partial<Record<ThrottleLimit, StoreDownPolicy>>;
  /** Milliseconds to wait for the store before treating it as down (default 1000). */
  timeout?: number;
  /** Bits of an IPv6 address that name one client (default 64). */
  ipv6Prefix?: number;
  /**
   * The client address of a request, for runtimes whose Request carries none (serverless handlers). By default:
   * the socket's address, or the last X-Forwarded-For entry when `trustHost` is on.
   */
  clientAddress?: (request: Request) => string | undefined;
}

/** The `throttle` option resolved: undefined when throttling is off. */
export interface ResolvedThrottle {
  /** The configured store; undefined means a memory store made on first use. */
  store?: ThrottleStore;
  rules: Readonly<Record<ThrottleLimit, ThrottleRule | false>>;
  providers: Readonly<Record<string, ThrottleRules>>;
  onStoreError: Readonly<Record<ThrottleLimit, StoreDownPolicy>>;
  timeout: number;
  ipv6Prefix: number;
  clientAddress?: (request: Request) => string | undefined;
}

const LIMITS = Object.keys(defaultThrottleRules) as ThrottleLimit[];

function checkRule(name: string, rule: ThrottleRule | false | undefined): void {
  if (rule === undefined || rule === false) return;
  const positive = (n: unknown) => typeof n === 'number' && Number.isFinite(n) && n > 0;
  if (!rule || !positive(rule.points) || !positive(rule.duration) || (rule.blockDuration !== undefined && !(rule.blockDuration >= 0))) {
    throw new TypeError(`throttle: the rule "${name}" needs positive \`points\` and \`duration\` (seconds).`);
  }
}

/**
 * Resolves the `throttle` option, or undefined when throttling is off. Throws TypeError naming a malformed rule.
 *
 * @example
 * resolveThrottle({ rules: { signIn: false } }, true)?.rules.signIn // false
 */
export function resolveThrottle(options: ThrottleOptions | undefined, production: boolean): ResolvedThrottle | undefined {
  if (!(options?.enabled ?? production)) return undefined;
  for (const limit of LIMITS) checkRule(limit, options?.rules?.[limit]);
  for (const [id, rules] of Object.entries(options?.providers ?? {})) for (const limit of LIMITS) checkRule(`${id}.${limit}`, rules?.[limit]);
  const rules = Object.fromEntries(LIMITS.map((l) => [l, options?.rules?.[l] ?? defaultThrottleRules[l]])) as Record<ThrottleLimit, ThrottleRule | false>;
  const policy = options?.onStoreError;
  const onStoreError = Object.fromEntries(
    LIMITS.map((l) => [l, typeof policy === 'string' ? policy : policy?.[l] ?? (l.startsWith('credentials') || l === 'secondFactorAccount' ? 'closed' : 'open')]),
  ) as Record<ThrottleLimit, StoreDownPolicy>;
  return {
    store: options?.store,
    rules,
    providers: options?.providers ?? {},
    onStoreError,
    timeout: options?.timeout ?? 1000,
    ipv6Prefix: options?.ipv6Prefix ?? 64,
    clientAddress: options?.clientAddress,
  };
}
