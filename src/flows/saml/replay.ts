// One use per assertion: its id is remembered in the flow store (shared by every instance: the database or Redis)
// until it could no longer be accepted anyway, and a second arrival, on any instance, is a replay.
import { createHash } from 'node:crypto';
import type { FlowKeyValueStore } from '../../core/flow-store/scoped.js';
import { FLOW_STORE_LIMITS } from '../../core/flow-store/scoped.js';
import { SAML_CLOCK_SKEW_MS } from './options.js';

/**
 * Claims the assertion `id` of `issuer` for this sign-in: `fresh` the first time, `replayed` after. The claim lives
 * until `notOnOrAfter` plus the clock skew (at least a second, at most the store's day).
 *
 * @example
 * if ((await spendAssertion(deps.store, assertion, Date.now())) === 'replayed') refuse(...)
 */
export async function spendAssertion(store: FlowKeyValueStore, assertion: { id: string; issuer: string; notOnOrAfter: number }, now: number): Promise<'fresh' | 'replayed'> {
  // The id is the IdP's (any characters, any length): its hash is the key.
  const key = `saml-assertion:${createHash('sha256').update(`${assertion.issuer}\n${assertion.id}`).digest('base64url')}`;
  const ttl = Math.min(FLOW_STORE_LIMITS.maxTtlSeconds, Math.max(1, Math.ceil((assertion.notOnOrAfter + SAML_CLOCK_SKEW_MS - now) / 1000)));
  return (await store.add(key, 1, ttl)) ? 'fresh' : 'replayed';
}
