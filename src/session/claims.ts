// The claims authchart relies on, written by authchart alone: who the session is for (`sub`), when and how they
// last proved it (`auth_time`, `amr`) and when the session began (`session_iat`: "sessions valid after" compares
// it). A `jwt` callback sees them, but nothing it returns overwrites them, so an app that merges an update body
// into the token cannot let a client forge a step-up or outlive "sign out everywhere". `iat`, `exp` and `jti` are
// set by the encoder on every write. `provider_tokens` (provider-token-claim.ts) is reserved too, and callbacks do not
// even see it.
import type { JWT } from '../core/types.js';
import { PROVIDER_TOKENS_CLAIM } from './provider-token-claim.js';

/** The session's active organization (organizations): switched through its route only; membership is checked on every read. */
export const ORGANIZATION_CLAIM = 'org_id';

/** The reserved claims (see the module comment). */
export const RESERVED_CLAIMS = ['sub', 'auth_time', 'amr', 'session_iat', PROVIDER_TOKENS_CLAIM, ORGANIZATION_CLAIM] as const;

/** The reserved claims of a token authchart wrote (absent ones stay absent). */
export function reservedClaims(token: JWT): Partial<JWT> {
  const out: Partial<JWT> = {};
  for (const claim of RESERVED_CLAIMS) if (token[claim] !== undefined) out[claim] = token[claim] as never;
  return out;
}

/**
 * What a callback returned, with the reserved claims exactly as authchart wrote them in `authoritative`: a
 * value the callback changed is put back, one it added where authchart wrote none is dropped.
 *
 * @example
 * await writeToken(req, withReserved(await callbacks.jwt({ token, trigger: 'update', session: body }), token))
 */
export function withReserved(returned: JWT, authoritative: JWT): JWT {
  const out: JWT = { ...returned };
  for (const claim of RESERVED_CLAIMS) {
    // Assigned in place, so a callback that changed nothing returns a token that compares equal, key order and all.
    if (authoritative[claim] === undefined) delete out[claim];
    else out[claim] = authoritative[claim] as never;
  }
  return out;
}
