// A passkey as the second factor: a user with registered authenticators passes the stage with a WebAuthn assertion
// instead of a code. The ceremony is the WebAuthn flow's own (options, verification, single-use challenges), bound
// here to the pending sign-in: its challenge is sealed with it, only the user's own credentials are allowed, and a
// failed assertion counts as a wrong code.
import { InvalidCheck, WebAuthnVerificationError } from '../../core/errors.js';
import type { ResolvedProvider } from '../../core/provider.js';
import type { Account, AdapterAuthenticator } from '../../core/types.js';
import type { FlowDeps } from '../runtime/contract.js';
import { flowDeps } from '../runtime/deps.js';
import { authenticationOptions, findAuthenticator, updateCounter, verifyAuthentication } from '../webauthn/steps.js';
import { settleAttempt, type CodeCheck } from './steps.js';

/** The assertion a pending sign-in asked for: its challenge and when an answer to it is too late (ms). */
export interface PendingAssertion {
  challenge: string;
  expiresAt: number;
}

/** The app's WebAuthn provider, whose relying party and options the stage's ceremony uses (the first, if several). */
function webauthnProvider(deps: Pick<FlowDeps, 'req'>): ResolvedProvider | undefined {
  return deps.req.config.providers.find((p) => p.type === 'webauthn');
}

function asWebAuthn(deps: Pick<FlowDeps, 'req'>, provider: ResolvedProvider): FlowDeps {
  return flowDeps(deps.req, provider, '');
}

async function authenticatorsOf(deps: Pick<FlowDeps, 'req'>, userId: string): Promise<AdapterAuthenticator[]> {
  const adapter = deps.req.config.adapter;
  return adapter?.listAuthenticatorsByUserId ? adapter.listAuthenticatorsByUserId(userId) : [];
}

/**
 * Whether the stage offers a passkey: a WebAuthn provider is configured, the user has registered passkeys, and the
 * first factor was not a passkey (the same authenticator twice is one factor, not two).
 */
export async function passkeyOffered(deps: Pick<FlowDeps, 'req'>, userId: string, account?: Account): Promise<boolean> {
  if (account?.type === 'webauthn' || !webauthnProvider(deps)) return false;
  return (await authenticatorsOf(deps, userId)).length > 0;
}

/** Assertion options for the pending sign-in: a fresh challenge, and only this user's credentials allowed. */
export async function passkeyAssertionOptions(deps: Pick<FlowDeps, 'req'>, userId: string): Promise<{ options: unknown } & PendingAssertion> {
  const provider = webauthnProvider(deps);
  // Checked again here: without an allow-list the browser would offer any passkey of this site.
  if (!provider || (await authenticatorsOf(deps, userId)).length === 0) throw new InvalidCheck('This sign-in has no passkey to verify with.');
  const { options, challenge, expiresAt } = await authenticationOptions(asWebAuthn(deps, provider), userId);
  return { options, challenge, expiresAt };
}

/** Whether `credential` is a valid assertion of one of the user's passkeys over the pending challenge (spending it). */
async function assertionMatches(deps: Pick<FlowDeps, 'req'>, userId: string, credential: unknown, assertion: PendingAssertion | undefined): Promise<boolean> {
  const provider = webauthnProvider(deps);
  // No options were asked for this sign-in, or the answer came after they expired.
  if (!provider || !assertion || Date.now() > assertion.expiresAt) return false;
  const wdeps = asWebAuthn(deps, provider);
  try {
    const authenticator = await findAuthenticator(wdeps, credential);
    // Another user's passkey proves nothing about this one.
    if (!authenticator || String(authenticator.userId) !== userId) return false;
    const { newCounter } = await verifyAuthentication(wdeps, { credential, challenge: assertion.challenge, expiresAt: assertion.expiresAt, authenticator });
    await updateCounter(wdeps, { credentialID: authenticator.credentialID, newCounter });
    return true;
  } catch (err) {
    // A bad or replayed assertion is a miss; a database or stored-key problem is the server's.
    if (err instanceof WebAuthnVerificationError || err instanceof InvalidCheck) return false;
    throw err;
  }
}

/** One passkey attempt at the stage, counted like a code: passed once at most, a miss toward the limit. */
export async function checkPasskeyFactor(
  deps: Pick<FlowDeps, 'req'>,
  params: { userId: string; challengeId: string; expiresAt: number; credential: unknown; assertion?: PendingAssertion },
): Promise<CodeCheck> {
  const matched = await assertionMatches(deps, params.userId, params.credential, params.assertion);
  return settleAttempt(deps, params, matched ? 'passkey' : undefined);
}
