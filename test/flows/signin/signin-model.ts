// The model of the standard sign-in tail for its model-based test: what each actor can answer, per kind of account
// and session store, each answer labelled with the branch of the world (signin-world.ts) that makes the real actor
// answer so; and the paths through `signInMachine` those answers give.
import type { AnyEventObject, AnyMachineSnapshot } from 'xstate';
import { AccessDenied, AccountNotLinked, AdapterError, InvalidCheck, OAuthAccountNotLinked } from '../../../src/core/errors.js';
import type { ProviderType } from '../../../src/core/types.js';
import type { FactorNeed } from '../../../src/flows/factors/steps.js';
import { signInMachine } from '../../../src/flows/signin/machine.js';
import { ORIGIN } from '../../support/auth-app.js';
import { modelPaths, type ModelPath } from '../../support/model-paths.js';

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
export type Outcome = AnyEventObject & { branch: string };
// Outputs carry their branch, so two branches never share a snapshot and each keeps its own path to the end.
const done = (actor: string, branch: string, output: unknown): Outcome => ({ type: `xstate.done.actor.${actor}`, branch, output });
const failed = (actor: string, branch: string, error: Error): Outcome => ({ type: `xstate.error.actor.${actor}`, branch, error });
const resolved = (branch: string, r: { created?: boolean; linked?: boolean; updated?: boolean; isNewUser?: boolean } = {}) =>
  done('resolveUser', branch, { user: { id: 'model', branch }, isNewUser: r.isNewUser ?? r.created ?? false, created: r.created ?? false, linked: r.linked ?? false, updated: r.updated ?? false });

export const F = {
  credentials: 'credentials are found by their own rules',
  noAdapter: 'no adapter to look in',
  unknown: 'nobody owns it yet',
  known: 'a stored user owns it',
  fails: 'the database refuses the lookup',
} as const;

export const findOwnerOutcomes: Record<Variant, Outcome[]> = {
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
  idOtherAddress: 'the id names a user with another address',
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
export const resolveOutcomes: Record<Variant, { unknown: Outcome[]; known: Outcome[] }> = {
  'credentials-jwt': { unknown: [resolved(R.asReturned)], known: [] },
  'credentials-database': {
    unknown: [
      resolved(R.created, { created: true, linked: true }),
      resolved(R.found),
      resolved(R.foundById, { linked: true }),
      resolved(R.foundSwitching),
      failed('resolveUser', R.addressTaken, new AccountNotLinked('taken')),
      failed('resolveUser', R.idOtherAddress, new AccountNotLinked('other address')),
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

/** The branch on which a variant's session issue is also made to fail (one is enough: the rest end in `done`). */
const issueFailsAfter: Record<Variant, string> = {
  'credentials-jwt': R.asReturned,
  'credentials-database': R.created,
  'oauth-jwt': R.asGiven,
  'oauth-database': R.newUser,
  email: R.newVerified,
  webauthn: R.registersSignedOut,
};

export const I = {
  ok: 'session issued',
  jwtNull: 'jwt returns null',
  jwtThrows: 'jwt throws',
  refusesSession: 'the database refuses the session',
} as const;

export function issueOutcomes(variant: Variant, resolvedBranch: string | undefined): Outcome[] {
  const ok = done('issueSession', I.ok, undefined);
  if (resolvedBranch !== issueFailsAfter[variant]) return [ok];
  if (!storesUsers(variant)) return [ok, failed('issueSession', I.jwtNull, new AccessDenied('no token')), failed('issueSession', I.jwtThrows, new Error('jwt crashed'))];
  return [ok, failed('issueSession', I.refusesSession, new AdapterError('0x00'))];
}

// ---- the second-factor stage ----------------------------------------------------------------------------------

/** factorNeed's answers: what the world's `secondFactor` option and factor rows make the stage do. */
export const N = {
  off: 'no second factor configured',
  none: 'no factor, none required',
  verify: 'an active authenticator app',
  verifyPasskey: 'an active authenticator app and a passkey',
  enrol: 'no factor yet, require says enrol',
  requireThrows: 'the require callback throws',
} as const;

/** The code form posted at a paused stage, in time or after the pending sign-in expired. */
export const S = { inTime: 'within 10 minutes', late: 'after 10 minutes' } as const;

/** checkFactorCode's answers at the stage (verifyingCode). */
export const C = {
  otp: 'the current app code',
  backup: 'an unused backup code',
  wrong: 'a wrong code',
  locked: 'a wrong code, the last attempt allowed',
  refused: 'the database refuses to spend the step',
} as const;

/** The passkey's options (preparingPasskey): asked where none is offered, given, or failing. */
export const O = {
  notOffered: 'no passkey to offer',
  offered: 'options for the user’s passkeys',
  gone: 'the passkeys were removed meanwhile',
  unavailable: 'the database cannot list the passkeys',
} as const;

/** checkPasskey's answers (verifyingPasskey). */
export const P = {
  valid: 'a valid assertion of the user’s passkey',
  bad: 'an assertion with a bad signature',
  locked: 'a bad assertion, the last attempt allowed',
  refused: 'the database refuses the new signature counter',
} as const;

/** The variant where the stage also offers a passkey (any would do: the tail is the same). */
export const PASSKEY_VARIANT: Variant = 'credentials-database';

/** The answers of the enrolment's actors (enrolling, confirmingEnrolment, showingEnrolmentAgain, activatingFactor). */
export const E = {
  started: 'a new key is shown',
  refusesNew: 'the database refuses the new factor',
  confirmed: 'the first code of the new key',
  wrong: 'a wrong first code',
  locked: 'a wrong first code, the last attempt allowed',
  refused: 'the database refuses to spend the first step',
  shownAgain: 'the key is shown again',
  gone: 'the factor being enrolled was removed meanwhile',
  activated: 'the factor is active',
  refusesActivation: 'the database refuses the activation',
} as const;

/**
 * Per variant that stores users, the resolveUser branches where the stage has more to do than `none`: a stored
 * user (every branch of the stage) and a new user (enrolled on the way in, when `require` says so).
 */
export const factorBranches: Partial<Record<Variant, { stored: string; fresh: string }>> = {
  'credentials-database': { stored: R.found, fresh: R.created },
  'oauth-database': { stored: R.owner, fresh: R.newUser },
  email: { stored: R.verified, fresh: R.newVerified },
  webauthn: { stored: R.owner, fresh: R.registersSignedOut },
};

const need = (branch: string, output: FactorNeed, passkey = false) => done('factorNeed', branch, { need: output, passkey });

/** factorNeed's answers after a resolveUser branch. */
export function factorNeedOutcomes(variant: Variant, resolvedBranch: string | undefined): Outcome[] {
  if (!storesUsers(variant)) return [need(N.off, 'none')];
  const at = factorBranches[variant]!;
  if (resolvedBranch === at.stored) {
    return [
      need(N.none, 'none'),
      need(N.verify, 'verify'),
      ...(variant === PASSKEY_VARIANT ? [need(N.verifyPasskey, 'verify', true)] : []),
      need(N.enrol, 'enrol'),
      failed('factorNeed', N.requireThrows, new Error('require crashed')),
    ];
  }
  if (resolvedBranch === at.fresh) return [need(N.none, 'none'), need(N.enrol, 'enrol')];
  return [need(N.none, 'none')];
}

const submit = (branch: string): Outcome => ({ type: 'SUBMIT_CODE', code: '', branch });
const askOptions = (branch: string): Outcome => ({ type: 'PASSKEY_OPTIONS', branch });
const submitPasskey = (branch: string): Outcome => ({ type: 'SUBMIT_PASSKEY', credential: null, branch });
const page = { title: 'Set up two-step verification', fields: [{ name: 'code', label: 'Code' }] };

/** The stage's events, per state: every branch after a stored user, the way in for a new one. */
function stageOutcomes(state: string, stored: boolean, factor: { passkey?: boolean; assertion?: unknown } = {}): Outcome[] {
  const all: Record<string, Outcome[]> = {
    // With a passkey offered the model drives the passkey (the code form beside it is driven without one).
    awaitingFactor: factor.passkey
      ? [askOptions(S.inTime), askOptions(S.late), ...(factor.assertion ? [submitPasskey(S.inTime), submitPasskey(S.late)] : [])]
      : [submit(S.inTime), submit(S.late), askOptions(O.notOffered)],
    preparingPasskey: [
      done('passkeyOptions', O.offered, { options: {}, challenge: 'model-challenge', expiresAt: 1 }),
      failed('passkeyOptions', O.gone, new InvalidCheck('This sign-in has no passkey to verify with.')),
      failed('passkeyOptions', O.unavailable, new AdapterError('listAuthenticatorsByUserId')),
    ],
    verifyingPasskey: [
      done('checkPasskey', P.valid, { result: 'passed', method: 'passkey' }),
      done('checkPasskey', P.bad, { result: 'wrong', attempts: 1 }),
      done('checkPasskey', P.locked, { result: 'locked', attempts: 1 }),
      failed('checkPasskey', P.refused, new AdapterError('updateAuthenticatorCounter')),
    ],
    verifyingCode: [
      done('checkFactorCode', C.otp, { result: 'passed', method: 'otp' }),
      done('checkFactorCode', C.backup, { result: 'passed', method: 'backup' }),
      done('checkFactorCode', C.wrong, { result: 'wrong', attempts: 1 }),
      done('checkFactorCode', C.locked, { result: 'locked', attempts: 1 }),
      failed('checkFactorCode', C.refused, new AdapterError('advanceFactorStep')),
    ],
    enrolling: [done('startEnrolment', E.started, { factorId: 'model-factor', page }), failed('startEnrolment', E.refusesNew, new AdapterError('createFactor'))],
    awaitingEnrolment: [submit(S.inTime), submit(S.late)],
    confirmingEnrolment: [
      done('confirmEnrolment', E.confirmed, { result: 'passed', method: 'otp' }),
      done('confirmEnrolment', E.wrong, { result: 'wrong', attempts: 1 }),
      done('confirmEnrolment', E.locked, { result: 'locked', attempts: 1 }),
      failed('confirmEnrolment', E.refused, new AdapterError('advanceFactorStep')),
    ],
    showingEnrolmentAgain: [done('enrolmentPage', E.shownAgain, page), failed('enrolmentPage', E.gone, new Error('The factor being enrolled is gone.'))],
    activatingFactor: [done('activateFactor', E.activated, undefined), failed('activateFactor', E.refusesActivation, new AdapterError('activateFactor'))],
  };
  const options = all[state] ?? [];
  // A new user takes the one way through: a key shown, its first code, the factor active.
  return stored ? options : options.slice(0, 1);
}

const STAGE_STATES = new Set(['awaitingFactor', 'preparingPasskey', 'verifyingPasskey', 'verifyingCode', 'enrolling', 'awaitingEnrolment', 'confirmingEnrolment', 'showingEnrolmentAgain', 'activatingFactor']);

/** The events worth trying in a snapshot: only what the variant's world can really produce there. */
export function eventsFor(variant: Variant) {
  return (snapshot: AnyMachineSnapshot): AnyEventObject[] => {
    const context = snapshot.context as { owner?: unknown; user?: { branch?: string }; factor?: { passkey?: boolean; assertion?: unknown } };
    const state = snapshot.value as string;
    if (STAGE_STATES.has(state)) return stageOutcomes(state, context.user?.branch === factorBranches[variant]?.stored, context.factor);
    switch (state) {
      case 'idle':
        return [{ type: 'START' }];
      case 'findingOwner':
        return findOwnerOutcomes[variant];
      case 'checkingSignIn':
        return signInOutcomes;
      case 'resolvingUser':
        return resolveOutcomes[variant][context.owner ? 'known' : 'unknown'];
      case 'checkingFactors':
        return factorNeedOutcomes(variant, context.user?.branch);
      case 'issuingSession':
        // Past the stage the session is issued: its failures are driven once, on the way without a factor.
        return context.factor ? [done('issueSession', I.ok, undefined)] : issueOutcomes(variant, context.user?.branch);
      default:
        return [];
    }
  };
}

// The model decides the one guard that reads the clock (a pending check's expiry) by the event's branch, as the
// world decides it by moving the clock past the expiry before posting the code.
const modelMachine = signInMachine.provide({ guards: { pendingExpired: ({ event }) => (event as Outcome).branch === S.late } });

/** What tells two snapshots apart: the state and what guards read, not the page shown or the pending check's id. */
function stateKey(snapshot: AnyMachineSnapshot): string {
  const { deps: _deps, response: _response, code: _code, credential: _credential, factor, ...rest } = snapshot.context as Record<string, unknown> & {
    factor?: { enrolling?: string; method?: string; passkey?: boolean; assertion?: unknown };
  };
  const stage = factor && { enrolling: factor.enrolling, method: factor.method, passkey: factor.passkey, asked: factor.assertion !== undefined };
  return JSON.stringify({ value: snapshot.value, context: rest, factor: stage });
}

export function pathsFor(variant: Variant): ModelPath[] {
  const identity = { user: { id: 'model', email: 'model@example.com' }, account: { provider: 'proof', type: accountType(variant), providerAccountId: 'model' } };
  return modelPaths(modelMachine, { events: eventsFor(variant), stateKey, input: { deps: {}, callbackUrl: `${ORIGIN}/dashboard`, identity } });
}

/** The branch each actor took on a path, by actor name (and by event type: when the code was posted, ...). */
export function branchesOf(path: ModelPath): Record<string, string> {
  const out: Record<string, string> = {};
  for (const event of path.events as Outcome[]) {
    const actor = /^xstate\.(?:done|error)\.actor\.(.+)$/.exec(event.type)?.[1];
    if (actor) out[actor] = event.branch;
    else if (!event.type.startsWith('xstate.') && event.branch) out[event.type] = event.branch;
  }
  return out;
}

/** The branches that are a database failing for real (logged as AdapterError, whatever state caught it). */
export const DB_FAILURES = new Set<string>([F.fails, R.refusesId, R.refusesUser, I.refusesSession, C.refused, E.refusesNew, E.refused, E.refusesActivation, O.unavailable, P.refused]);


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
