// The model of the standard sign-in tail for its model-based test: what each actor can answer, per kind of account
// and session store, each answer labelled with the branch of the world (signin-world.ts) that makes the real actor
// answer so; and the paths through `signInMachine` those answers give. The tail ends with the user resolved; the
// second factor has its own model (test/flows/second-factor), and the session issue (in the runtime) is driven here
// as extra cases of one path per variant.
import type { AnyEventObject, AnyMachineSnapshot } from 'xstate';
import { AccountNotLinked, AdapterError, OAuthAccountNotLinked } from '../../../src/core/errors.js';
import type { ProviderType } from '../../../src/core/types.js';
import { signInMachine } from '../../../src/flows/signin/machine.js';
import { ORIGIN } from '../../support/auth-app.js';
import { modelPaths, type ModelPath } from '../../support/model-paths.js';
import { done, failed, type Labelled } from '../../support/model-events.js';

/**
 * One kind of account and one kind of session store: what the tail's rules branch on.
 * `oauth-jwt` has no adapter at all (the provider's user is used as it is); the other `*-database` and the
 * e-mail and passkey ones store users and sessions in PostgreSQL.
 */
export type Variant = 'credentials-jwt' | 'credentials-database' | 'oauth-jwt' | 'oauth-database' | 'email' | 'webauthn';
export const variants: Variant[] = ['credentials-jwt', 'credentials-database', 'oauth-jwt', 'oauth-database', 'email', 'webauthn'];
export const accountType = (v: Variant) => v.replace(/-.*$/, '') as ProviderType;
export const storesUsers = (v: Variant) => v !== 'credentials-jwt' && v !== 'oauth-jwt';

/** An invoke result the model sends, labelled with the branch of the world that produces it for real. */
export // Outputs carry their branch, so two branches never share a snapshot and each keeps its own path to the end.
const resolved = (branch: string, r: { created?: boolean; linked?: boolean; updated?: boolean; isNewUser?: boolean } = {}) =>
  done('resolveUser', branch, { user: { id: 'model', branch }, isNewUser: r.isNewUser ?? r.created ?? false, created: r.created ?? false, linked: r.linked ?? false, updated: r.updated ?? false });

export const F = {
  credentials: 'credentials are found by their own rules',
  noAdapter: 'no adapter to look in',
  unknown: 'nobody owns it yet',
  known: 'a stored user owns it',
  fails: 'the database refuses the lookup',
} as const;

export const findOwnerOutcomes: Record<Variant, Labelled[]> = {
  'credentials-jwt': [done('findOwner', F.credentials, null)],
  'credentials-database': [done('findOwner', F.credentials, null)],
  'oauth-jwt': [done('findOwner', F.noAdapter, null)],
  'oauth-database': [done('findOwner', F.unknown, null), done('findOwner', F.known, { id: 'owner', branch: F.known }), failed('findOwner', F.fails, new AdapterError('getUserByAccount'))],
  email: [done('findOwner', F.unknown, null), done('findOwner', F.known, { id: 'owner', branch: F.known }), failed('findOwner', F.fails, new AdapterError('getUserByEmail'))],
  webauthn: [done('findOwner', F.unknown, null), done('findOwner', F.known, { id: 'owner', branch: F.known }), failed('findOwner', F.fails, new AdapterError('getAccount'))],
};

export const signInOutcomes = [
  done('checkSignIn', 'signIn returns true', { allowed: true }),
  done('checkSignIn', 'signIn returns a URL', { allowed: false, redirect: `${ORIGIN}/blocked` }),
  done('checkSignIn', 'signIn returns false', { allowed: false }),
  failed('checkSignIn', 'signIn throws', new Error('signIn callback crashed')),
];

export const R = {
  asReturned: 'taken as authorize returned it',
  created: 'created in the database',
  found: 'found in the database',
  foundById: 'found by id, account linked now',
  foundSwitching: 'found in the database, another user was signed in',
  addressTaken: 'the address belongs to another user',
  idOtherAddress: 'the id is taken by a user with another address (never looked up: the store refuses the new user)',
  refusesId: 'the database refuses the id',
  asGiven: 'used as the provider gave it',
  owner: 'the owner signs in',
  ownerOtherSignedIn: 'another user is signed in',
  newUser: 'a new user with the account',
  linkedToCurrent: 'linked to the signed-in user',
  linkedByAddress: 'linked by address (allowDangerousEmailAccountLinking)',
  refusesUser: 'the database refuses the new user',
  verified: 'marked verified',
  verifiedSwitching: 'marked verified, another user was signed in',
  newVerified: 'a new verified user',
  registersSignedOut: 'registered signed out: a new user',
  registersSignedIn: 'registered by the signed-in user',
  registersForAnother: 'registered for another user than the one signed in',
  noPasskeyOwner: 'nobody owns the passkey',
} as const;

/** resolveUser's answers per variant, for an identity nobody owns yet and for one a stored user owns. */
export const resolveOutcomes: Record<Variant, { unknown: Labelled[]; known: Labelled[] }> = {
  'credentials-jwt': { unknown: [resolved(R.asReturned)], known: [] },
  'credentials-database': {
    unknown: [
      resolved(R.created, { created: true, linked: true }),
      resolved(R.found),
      resolved(R.foundById, { linked: true }),
      resolved(R.foundSwitching),
      failed('resolveUser', R.addressTaken, new AccountNotLinked('taken')),
      failed('resolveUser', R.idOtherAddress, new AdapterError('id taken')),
      failed('resolveUser', R.refusesId, new AdapterError('0x00')),
    ],
    known: [],
  },
  'oauth-jwt': { unknown: [resolved(R.asGiven)], known: [] },
  'oauth-database': {
    unknown: [
      resolved(R.newUser, { created: true, linked: true }),
      resolved(R.linkedToCurrent, { linked: true }),
      resolved(R.linkedByAddress, { linked: true }),
      failed('resolveUser', R.addressTaken, new OAuthAccountNotLinked('taken')),
      failed('resolveUser', R.refusesUser, new AdapterError('0x00')),
    ],
    known: [resolved(R.owner), failed('resolveUser', R.ownerOtherSignedIn, new OAuthAccountNotLinked('another user'))],
  },
  email: {
    unknown: [resolved(R.newVerified, { created: true }), failed('resolveUser', R.refusesUser, new AdapterError('read-only'))],
    known: [resolved(R.verified, { updated: true }), resolved(R.verifiedSwitching, { updated: true })],
  },
  webauthn: {
    unknown: [
      resolved(R.registersSignedOut, { created: true, linked: true }),
      resolved(R.registersSignedIn, { linked: true }),
      failed('resolveUser', R.registersForAnother, new AccountNotLinked('another user')),
      failed('resolveUser', R.noPasskeyOwner, new Error('no owner')),
    ],
    known: [resolved(R.owner), failed('resolveUser', R.ownerOtherSignedIn, new AccountNotLinked('another user'))],
  },
};

/** The branch on which a variant's session issue is also made to fail, in extra cases (the tail's path is the same). */
export const issueFailsAfter: Record<Variant, string> = {
  'credentials-jwt': R.asReturned,
  'credentials-database': R.created,
  'oauth-jwt': R.asGiven,
  'oauth-database': R.newUser,
  email: R.newVerified,
  webauthn: R.registersSignedOut,
};

/**
 * How the session issue after `resolved` fails, in the runtime (no machine state): the jwt callback refusing or
 * throwing (JWT sessions), the database refusing the session row (database sessions).
 */
export const I = {
  jwtNull: 'jwt returns null',
  jwtThrows: 'jwt throws',
  refusesSession: 'the database refuses the session',
} as const;
export type IssueFailure = (typeof I)[keyof typeof I];

/** The issue failures a variant can meet: the jwt callback's for JWT sessions, the database's for the others. */
export const issueFailures = (variant: Variant): IssueFailure[] => (storesUsers(variant) ? [I.refusesSession] : [I.jwtNull, I.jwtThrows]);

/** The events worth trying in a snapshot: only what the variant's world can really produce there. */
export function eventsFor(variant: Variant) {
  return (snapshot: AnyMachineSnapshot): AnyEventObject[] => {
    const context = snapshot.context as { owner?: unknown };
    switch (snapshot.value as string) {
      case 'idle':
        return [{ type: 'START' }];
      case 'findingOwner':
        return findOwnerOutcomes[variant];
      case 'checkingSignIn':
        return signInOutcomes;
      case 'resolvingUser':
        return resolveOutcomes[variant][context.owner ? 'known' : 'unknown'];
      default:
        return [];
    }
  };
}

/** What tells two snapshots apart: the state and what guards read. */
function stateKey(snapshot: AnyMachineSnapshot): string {
  const { deps: _deps, ...rest } = snapshot.context as Record<string, unknown>;
  return JSON.stringify({ value: snapshot.value, context: rest });
}

export function pathsFor(variant: Variant): ModelPath[] {
  const identity = { user: { id: 'model', email: 'model@example.com' }, account: { provider: 'proof', type: accountType(variant), providerAccountId: 'model' } };
  return modelPaths(signInMachine, { events: eventsFor(variant), stateKey, input: { deps: {}, callbackUrl: `${ORIGIN}/dashboard`, identity } });
}

/** The branch each actor took on a path, by actor name (and by event type: when the code was posted, ...). */
export function branchesOf(path: ModelPath): Record<string, string> {
  const out: Record<string, string> = {};
  for (const event of path.events as Labelled[]) {
    const actor = /^xstate\.(?:done|error)\.actor\.(.+)$/.exec(event.type)?.[1];
    if (actor) out[actor] = event.branch;
    else if (!event.type.startsWith('xstate.') && event.branch) out[event.type] = event.branch;
  }
  return out;
}

/** The branches that are a database failing for real (logged as AdapterError, whatever state caught it). */
export const DB_FAILURES = new Set<string>([F.fails, R.refusesId, R.idOtherAddress, R.refusesUser, I.refusesSession]);


/** The events a resolveUser branch writes, in the order the tail emits them. */
export const RESOLUTION_EVENTS: Record<string, string[]> = {
  [R.created]: ['createUser', 'linkAccount'],
  [R.foundById]: ['linkAccount'],
  [R.newUser]: ['createUser', 'linkAccount'],
  [R.linkedToCurrent]: ['linkAccount'],
  [R.linkedByAddress]: ['linkAccount'],
  [R.verified]: ['updateUser'],
  [R.verifiedSwitching]: ['updateUser'],
  [R.newVerified]: ['createUser'],
  [R.registersSignedOut]: ['createUser', 'linkAccount'],
  [R.registersSignedIn]: ['linkAccount'],
};
