// The throttle one configuration uses: a counter per limit (per provider where it has its own rule), keys hashed so a
// store holds no address or account name, and the store-down policy applied when the store fails or is slow.
import { createHmac } from 'node:crypto';
import type { ResolvedThrottle, ThrottleCounter, ThrottleLimit, ThrottleRule, ThrottleStore } from './options.js';

/** Why a hit was refused: over the limit, or the store is down and the limit fails closed. */
export interface ThrottleRefusal {
  limit: ThrottleLimit;
  /** Whole seconds until a retry may succeed (at least 1). */
  retryAfter: number;
  /** The store could not answer (the limit fails closed). */
  unavailable: boolean;
}

/** What the throttle needs of the logger. */
export interface ThrottleLogger {
  warn(code: string, message?: string): void;
}

/** Seconds a client is asked to wait when the store is down and a limit fails closed. */
export const STORE_DOWN_RETRY_AFTER = 30;
// One warning per this many ms while the store stays down: a flood of sign-ins must not become a flood of logs.
const WARN_EVERY_MS = 10_000;

class StoreTimeout extends Error {}

/**
 * Counters for one configuration.
 *
 * @example
 * const refusal = await throttle.hit('emailAddress', 'ada@example.com', 'email')
 * if (refusal) return tooManyRequests(refusal.retryAfter)
 */
export class Throttle {
  readonly #settings: ResolvedThrottle;
  readonly #store: ThrottleStore;
  readonly #secret: string;
  readonly #logger: ThrottleLogger;
  readonly #counters = new Map<string, ThrottleCounter>();
  #lastWarning = -Infinity;

  constructor(settings: ResolvedThrottle, store: ThrottleStore, secret: string, logger: ThrottleLogger) {
    this.#settings = settings;
    this.#store = store;
    this.#secret = secret;
    this.#logger = logger;
  }

  get storeKind(): string {
    return this.#store.kind;
  }

  /** The rule of a limit for a provider: its own override, else the configured or default one; false when off. */
  rule(limit: ThrottleLimit, providerId?: string): ThrottleRule | false {
    const own = providerId === undefined ? undefined : this.#settings.providers[providerId]?.[limit];
    return own ?? this.#settings.rules[limit];
  }

  #counter(limit: ThrottleLimit, rule: ThrottleRule, providerId?: string): ThrottleCounter {
    // A provider with its own rule counts apart; the others share the limit's counter.
    const own = providerId !== undefined && this.#settings.providers[providerId]?.[limit] !== undefined;
    const name = own ? `${limit}.${providerId}` : limit;
    let counter = this.#counters.get(name);
    if (!counter) this.#counters.set(name, (counter = this.#store.counter(name, rule)));
    return counter;
  }

  /** The stored form of a key: an HMAC, so a leaked store names no address or account. */
  #key(limit: ThrottleLimit, key: string): string {
    return createHmac('sha256', this.#secret).update(`${limit}\0${key}`).digest('base64url').slice(0, 32);
  }

  async #withTimeout<T>(work: Promise<T>): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new StoreTimeout(`no answer within ${this.#settings.timeout} ms`)), this.#settings.timeout);
    });
    try {
      return await Promise.race([work, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  #storeDown(limit: ThrottleLimit, error: unknown): ThrottleRefusal | undefined {
    const policy = this.#settings.onStoreError[limit];
    const now = Date.now();
    if (now - this.#lastWarning >= WARN_EVERY_MS) {
      this.#lastWarning = now;
      const reason = error instanceof Error ? error.message : String(error);
      this.#logger.warn('throttle-store-down', `The ${this.#store.kind} throttle store failed (${reason}); limit "${limit}" fails ${policy}.`);
    }
    return policy === 'closed' ? { limit, retryAfter: STORE_DOWN_RETRY_AFTER, unavailable: true } : undefined;
  }

  /**
   * Counts one hit on `key` under `limit`; a refusal when it is over the limit (or the store is down and the limit
   * fails closed), else undefined. A limit that is off counts nothing.
   */
  async hit(limit: ThrottleLimit, key: string, providerId?: string): Promise<ThrottleRefusal | undefined> {
    const rule = this.rule(limit, providerId);
    if (!rule) return undefined;
    try {
      await this.#withTimeout(this.#counter(limit, rule, providerId).consume(this.#key(limit, key)));
      return undefined;
    } catch (e) {
      if (e instanceof Error || !e || typeof (e as { msBeforeNext?: unknown }).msBeforeNext !== 'number') return this.#storeDown(limit, e);
      return { limit, retryAfter: Math.max(1, Math.ceil((e as { msBeforeNext: number }).msBeforeNext / 1000)), unavailable: false };
    }
  }

  /** Gives back a hit counted by {@link hit} (a sign-in that succeeded). Store failures are ignored. */
  async refund(limit: ThrottleLimit, key: string, providerId?: string): Promise<void> {
    const rule = this.rule(limit, providerId);
    if (!rule) return;
    try {
      await this.#withTimeout(this.#counter(limit, rule, providerId).reward(this.#key(limit, key), 1));
    } catch {
      // The hit stays counted: the safe side of a lost refund.
    }
  }
}
