// The steps of the WebAuthn flow: what the request asks, who the ceremony is for, the options, and verification
// with @simplewebauthn/server. Each step throws one of our typed errors; the machine decides. Storing a new
// passkey and finding a passkey's user are the sign-in tail's (src/flows/signin/resolve.ts).
import { storedAaguid } from './authenticator-names.js';
import type { AuthenticationResponseJSON, RegistrationResponseJSON } from '@simplewebauthn/server';
import { storedEmailOf } from '../../core/email-address.js';
import { InvalidCheck, WebAuthnVerificationError } from '../../core/errors.js';
import type { AdapterAuthenticator, AdapterUser } from '../../core/types.js';
import type { WrappedAdapter } from '../../core/adapter-wrap.js';
import { loadSimpleWebAuthn, relyingPartyFor, requiresUserVerification, type WebAuthnConfig } from '../../providers/webauthn.js';
import { signedInUserId } from '../../session/gate.js';
import type { FlowDeps } from '../runtime/contract.js';
import type { NewPasskey } from '../signin/resolve.js';
import { spendChallenge, spendChallengeInStore } from './challenges.js';
import { lazy } from '../../core/lazy.js';

// The .catch also tells bundlers (esbuild under wrangler) that the optional peer may be absent: without it, an app that
// does not install @simplewebauthn/server fails to bundle.
const loadHelpers = lazy(() =>
  import('@simplewebauthn/server/helpers').catch((err: unknown) => {
    throw new Error('WebAuthn needs the optional peer dependency @simplewebauthn/server (v14): npm i @simplewebauthn/server', { cause: err });
  }),
);

export type Ceremony = 'register' | 'authenticate';

/** What the options request asked for (`?action=&email=`). The address only labels a new passkey. */
export interface OptionsRequest {
  action?: Ceremony;
  email?: string;
}

/**
 * Who is asking: the signed-in user, if any. Nobody is looked up by the address given: which addresses have a
 * user must not show in the answer (account enumeration), and a signed-out registration never depends on it.
 */
export interface Subject {
  sessionUser: AdapterUser | null;
}

/**
 * Whom a new passkey is for: the signed-in user, or (signed out) a new user that owns no e-mail address. An
 * address belongs to a user only once it is proven (a magic link, a provider's profile): a passkey registered
 * while signed out proves none, so the typed address only labels the passkey in the authenticator.
 */
export interface Registrant {
  userId?: string;
  /** The signed-in user's address; a new user has none. */
  email?: string | null;
  name?: string | null;
  /** The user name the authenticator shows for this passkey. */
  label?: string;
}

/** A ceremony's options, as the browser gets them, and the challenge the flow keeps. */
export interface CeremonyOptions {
  options: unknown;
  challenge: string;
  /** After this time (ms) the answer is refused as expired. */
  expiresAt: number;
}

/** A verified new credential, in the adapter's shape minus its owner (the tail stores it with its user). */
export type RegisteredCredential = NewPasskey['credential'];

/** What the flow decides to do with an options request. */
export type Choice = Ceremony | 'invalidRequest';

/**
 * The ceremony rules, which never depend on whether an address has a user: authenticate is always allowed (with
 * discoverable credentials when signed out); register adds a passkey to the signed-in user, or, signed out,
 * makes a new user without an address, labelled with the address given (one is required). Without an action a
 * signed-out caller authenticates, and a signed-in caller must say what it wants.
 */
export function chooseCeremony(request: OptionsRequest, subject: Subject): Choice {
  const signedIn = subject.sessionUser !== null;
  if (request.action === 'authenticate') return 'authenticate';
  if (request.action === 'register') return signedIn || request.email ? 'register' : 'invalidRequest';
  return signedIn ? 'invalidRequest' : 'authenticate';
}

/** `?action=` and `?email=` of an options request; undefined when the action is not one we know. */
export function optionsRequestOf(query: Record<string, string>): OptionsRequest | undefined {
  const action = query.action || undefined;
  if (action !== undefined && action !== 'register' && action !== 'authenticate') return undefined;
  const typed = query.email?.trim().toLowerCase() || undefined;
  return { action, email: typed && storedEmailOf(typed) };
}

/** The credential of a callback body: a JSON object, or a JSON string of one (forms); anything else is none. */
export function credentialOf(data: unknown): unknown {
  if (typeof data === 'string') {
    try {
      data = JSON.parse(data);
    } catch {
      return undefined;
    }
  }
  return data && typeof data === 'object' && !Array.isArray(data) ? data : undefined;
}

export const toBase64 = (base64url: string): string => Buffer.from(base64url, 'base64url').toString('base64');
export const toBase64Url = (base64: string): string => Buffer.from(base64, 'base64').toString('base64url');
const transportsOf = (stored: string | null | undefined) => (stored ? stored.split(',').filter(Boolean) : undefined);

function adapterOf(deps: FlowDeps): WrappedAdapter {
  // Checked at start (MissingAdapter); this only satisfies the type.
  if (!deps.req.config.adapter) throw new Error('WebAuthn needs an adapter.');
  return deps.req.config.adapter;
}

function providerOf(deps: FlowDeps): WebAuthnConfig {
  return deps.provider as unknown as WebAuthnConfig;
}

/** The signed-in user, if the session names one the adapter knows. */
async function currentUser(deps: FlowDeps): Promise<AdapterUser | null> {
  const id = await signedInUserId(deps.req);
  return id ? ((await adapterOf(deps).getUser(id)) as AdapterUser | null) : null;
}

/** Looks up the session's user; the e-mail address of the request is never looked up. */
export async function findSessionUser(deps: FlowDeps): Promise<Subject> {
  return { sessionUser: await currentUser(deps) };
}

/** Whom a registration is for, from the subject the flow chose `register` for. */
export function registrantOf(request: OptionsRequest, subject: Subject): Registrant {
  const u = subject.sessionUser;
  return u ? { userId: String(u.id), email: u.email, name: u.name ?? null } : { email: null, label: request.email };
}

const descriptors = (list: AdapterAuthenticator[]) => list.map((a) => ({ id: toBase64Url(a.credentialID), transports: transportsOf(a.transports) }));

/** Registration options; the user's existing authenticators are excluded so a device is not registered twice. */
export async function registrationOptions(deps: FlowDeps, registrant: Registrant): Promise<CeremonyOptions> {
  const provider = providerOf(deps);
  const rp = relyingPartyFor(provider, deps.req.origin);
  const existing = registrant.userId ? await adapterOf(deps).listAuthenticatorsByUserId(registrant.userId) : [];
  const lib = await loadSimpleWebAuthn();
  const userName = registrant.email || registrant.label || registrant.name || registrant.userId || 'user';
  const options = await lib.generateRegistrationOptions({
    rpName: rp.name,
    rpID: rp.id,
    userName,
    userDisplayName: registrant.name ?? userName,
    timeout: provider.timeout,
    attestationType: provider.registrationOptions?.attestationType ?? 'none',
    authenticatorSelection: provider.registrationOptions?.authenticatorSelection,
    supportedAlgorithmIDs: provider.registrationOptions?.supportedAlgorithmIDs,
    excludeCredentials: descriptors(existing),
  });
  return { options, challenge: options.challenge, expiresAt: Date.now() + provider.timeout };
}

/** Authentication options; a known user's credentials are listed (security keys need that), else any passkey. */
export async function authenticationOptions(deps: FlowDeps, userId: string | undefined): Promise<CeremonyOptions> {
  const provider = providerOf(deps);
  const rp = relyingPartyFor(provider, deps.req.origin);
  const existing = userId ? await adapterOf(deps).listAuthenticatorsByUserId(userId) : [];
  const lib = await loadSimpleWebAuthn();
  const options = await lib.generateAuthenticationOptions({
    rpID: rp.id,
    timeout: provider.timeout,
    userVerification: provider.authenticationOptions?.userVerification,
    allowCredentials: existing.length > 0 ? descriptors(existing) : undefined,
  });
  return { options, challenge: options.challenge, expiresAt: Date.now() + provider.timeout };
}

function replayed(challenge: string): InvalidCheck {
  return new InvalidCheck('This WebAuthn challenge was used before (a replayed response).', { expected: 'an unused challenge', actual: challenge });
}

function spend(challenge: string, expiresAt: number): void {
  if (!spendChallenge(challenge, expiresAt)) throw replayed(challenge);
}

/**
 * Records a challenge whose response verified in the database, for every instance to see. Only after
 * verification: an anonymous client with a fresh flow cookie and a made-up response must not cost a write.
 */
async function spendEverywhere(deps: FlowDeps, challenge: string, expiresAt: number): Promise<void> {
  if (!(await spendChallengeInStore(adapterOf(deps), challenge, expiresAt))) throw replayed(challenge);
}

function verificationError(err: unknown, what: string): WebAuthnVerificationError {
  if (err instanceof WebAuthnVerificationError) return err;
  const message = err instanceof Error ? err.message : String(err);
  return new WebAuthnVerificationError(`The ${what} could not be verified: ${message}`, err instanceof Error ? { err } : { actual: err });
}

/** Spends the challenge, then verifies a registration response against it, the origin and the RP ID. */
export async function verifyRegistration(deps: FlowDeps, input: { credential: unknown; challenge: string; expiresAt: number }): Promise<RegisteredCredential> {
  spend(input.challenge, input.expiresAt);
  const provider = providerOf(deps);
  const rp = relyingPartyFor(provider, deps.req.origin);
  let registered: RegisteredCredential;
  try {
    const lib = await loadSimpleWebAuthn();
    const result = await lib.verifyRegistrationResponse({
      response: input.credential as RegistrationResponseJSON,
      expectedChallenge: input.challenge,
      expectedOrigin: rp.origin,
      expectedRPID: rp.id,
      requireUserVerification: requiresUserVerification(provider.registrationOptions?.authenticatorSelection?.userVerification),
      supportedAlgorithmIDs: provider.registrationOptions?.supportedAlgorithmIDs,
    });
    if (!result.verified) throw new WebAuthnVerificationError('The registration response was not verified.');
    const { credential, credentialDeviceType, credentialBackedUp, aaguid } = result.registrationInfo;
    registered = {
      credentialID: toBase64(credential.id),
      credentialPublicKey: Buffer.from(credential.publicKey).toString('base64'),
      counter: credential.counter,
      transports: credential.transports?.length ? credential.transports.join(',') : null,
      credentialDeviceType,
      credentialBackedUp,
      aaguid: storedAaguid(aaguid),
    };
  } catch (err) {
    throw verificationError(err, 'registration response');
  }
  await spendEverywhere(deps, input.challenge, input.expiresAt);
  return registered;
}

function credentialIdOf(credential: unknown): string {
  const id = (credential as { id?: unknown } | null | undefined)?.id;
  if (typeof id !== 'string' || !/^[A-Za-z0-9_-]{1,1366}$/.test(id)) {
    throw new WebAuthnVerificationError('The authentication response carries no valid credential id.', { expected: 'base64url credential id', actual: typeof id });
  }
  return id;
}

/** The stored authenticator the response names, or null when the adapter does not know it. */
export async function findAuthenticator(deps: FlowDeps, credential: unknown): Promise<AdapterAuthenticator | null> {
  return adapterOf(deps).getAuthenticator(toBase64(credentialIdOf(credential)));
}

/**
 * Spends the challenge, then verifies an assertion with the stored public key and counter. A stored key that
 * cannot be decoded is the server's problem (a plain Error), not a verification failure.
 */
export async function verifyAuthentication(
  deps: FlowDeps,
  input: { credential: unknown; challenge: string; expiresAt: number; authenticator: AdapterAuthenticator },
): Promise<{ newCounter: number }> {
  spend(input.challenge, input.expiresAt);
  const provider = providerOf(deps);
  const rp = relyingPartyFor(provider, deps.req.origin);
  const { authenticator } = input;
  const lib = await loadSimpleWebAuthn();
  const publicKey = new Uint8Array(Buffer.from(authenticator.credentialPublicKey, 'base64'));
  const { decodeCredentialPublicKey } = await loadHelpers();
  let decoded: unknown;
  try {
    decoded = decodeCredentialPublicKey(publicKey);
  } catch (err) {
    decoded = err;
  }
  // A COSE key is a CBOR map with a key type (label 1); anything else means the stored row is damaged.
  if (!(decoded instanceof Map) || !decoded.has(1)) {
    throw new Error(`The stored public key of authenticator ${authenticator.credentialID} is not a COSE key.`, decoded instanceof Error ? { cause: decoded } : undefined);
  }
  let newCounter: number;
  try {
    const result = await lib.verifyAuthenticationResponse({
      response: input.credential as AuthenticationResponseJSON,
      expectedChallenge: input.challenge,
      expectedOrigin: rp.origin,
      expectedRPID: rp.id,
      credential: { id: toBase64Url(authenticator.credentialID), publicKey, counter: Number(authenticator.counter), transports: transportsOf(authenticator.transports) as never },
      requireUserVerification: requiresUserVerification(provider.authenticationOptions?.userVerification),
    });
    if (!result.verified) throw new WebAuthnVerificationError('The authentication response was not verified.');
    newCounter = result.authenticationInfo.newCounter;
  } catch (err) {
    throw verificationError(err, 'authentication response');
  }
  await spendEverywhere(deps, input.challenge, input.expiresAt);
  return { newCounter };
}

/** Stores the authenticator's new signature counter. */
export async function updateCounter(deps: FlowDeps, input: { credentialID: string; newCounter: number }): Promise<void> {
  await adapterOf(deps).updateAuthenticatorCounter(input.credentialID, input.newCounter);
}
