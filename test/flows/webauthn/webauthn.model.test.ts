// Model-based tests of the WebAuthn flow. The paths come from the machine's graph (every transition); each is
// then made to happen for real, through the HTTP layer, on PostgreSQL (PGlite) with responses from a software
// authenticator that @simplewebauthn/server verifies. The real run must take exactly the path's transitions,
// and the coverage counted from the runtime's own traces must reach 100 % of states and transitions.
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createActor, fromPromise, type AnyEventObject, type AnyMachineSnapshot } from 'xstate';
import { AccessDenied, AccountNotLinked, AdapterError, InvalidCheck, WebAuthnVerificationError } from '../../src/core/errors.js';
import { traceEntriesFromMicrostep, transitionKey, type TraceEntry } from '../../src/devtools/graph.js';
import { webauthnMachine, type WebAuthnContext } from '../../src/machines/webauthn.js';
import { ORIGIN } from '../support/auth-app.js';
import { createCoverage } from '../support/flow-coverage.js';
import { modelPaths, type ModelPath } from '../support/model-paths.js';
import { SoftAuthenticator } from './webauthn-authenticator.js';
import {
  authOn,
  createWorld,
  FLOW_COOKIE,
  getOptions,
  postCredential,
  REDIRECT_ELSEWHERE,
  seedPasskey,
  seedUser,
  SESSION_COOKIE,
  signInAs,
  uniqueEmail,
  webauthnRuns,
  type World,
} from './webauthn-world.js';

// ---- the model: which events each state may meet, each tagged with how the test makes it happen ----------------

const done = (id: string, output: unknown, how: string) => ({ type: `xstate.done.actor.${id}`, output, how });
const fail = (id: string, error: unknown, how: string) => ({ type: `xstate.error.actor.${id}`, error, how });

const T0 = 1_000_000;
const OPTIONS_OUT = { options: {}, challenge: 'challenge', expiresAt: T0 + 300_000 };
const MEMBER = { id: 'member', email: 'member@example.test', emailVerified: null };
const OWNER = { id: 'owner', email: 'owner@example.test', emailVerified: null };
const ACCOUNT = { provider: 'passkey', type: 'webauthn', providerAccountId: 'cred' };
const REGISTERED = { credentialID: 'cred', credentialPublicKey: 'key', counter: 0, credentialDeviceType: 'singleDevice', credentialBackedUp: false };
const AUTHENTICATOR = { ...REGISTERED, userId: 'owner', providerAccountId: 'cred' };
const credential = (type: 'REGISTER' | 'AUTHENTICATE') => [
  { type, credential: { id: 'cred' }, callbackUrl: '/after', at: T0 + 1_000, how: 'onTime' },
  { type, credential: { id: 'cred' }, callbackUrl: '/after', at: T0 + 600_000, how: 'late' },
];
const signInOutcomes = [
  done('checkSignIn', { allowed: true }, 'signIn:allow'),
  done('checkSignIn', { allowed: false, redirect: REDIRECT_ELSEWHERE }, 'signIn:redirect'),
  done('checkSignIn', { allowed: false }, 'signIn:deny'),
  fail('checkSignIn', new Error('the signIn callback broke'), 'signIn:throw'),
];

function leaf(snapshot: AnyMachineSnapshot): string {
  const v = snapshot.value;
  return typeof v === 'string' ? v : Object.entries(v as Record<string, string>).map(([k, c]) => `${k}.${c}`)[0];
}

/** The events worth trying in a state, limited to what the world can really produce there. */
function events(snapshot: AnyMachineSnapshot): AnyEventObject[] {
  const c = snapshot.context as WebAuthnContext;
  switch (leaf(snapshot)) {
    case 'idle':
      return [
        // Whether an address has a user changes nothing (no lookup): one address stands for all.
        { type: 'OPTIONS', action: 'register', email: 'new' },
        { type: 'OPTIONS', action: 'register' },
        { type: 'OPTIONS', action: 'authenticate' },
        { type: 'OPTIONS' },
      ];
    case 'resolvingUser':
      return [
        done('resolveUser', { sessionUser: null }, 'signedOut'),
        done('resolveUser', { sessionUser: MEMBER }, 'signedIn'),
        // Only a session's user is looked up, so only a signed-in request has a lookup to fail.
        fail('resolveUser', new AdapterError('down'), 'fault:getUser'),
      ];
    case 'registration.preparing':
      return [
        done('registrationOptions', OPTIONS_OUT, 'ok'),
        ...(c.registrant?.userId ? [fail('registrationOptions', new AdapterError('down'), 'fault:listAuthenticatorsByUserId')] : []),
      ];
    case 'authentication.preparing':
      return [
        done('authenticationOptions', OPTIONS_OUT, 'ok'),
        ...(c.subject?.sessionUser ? [fail('authenticationOptions', new AdapterError('down'), 'fault:listAuthenticatorsByUserId')] : []),
      ];
    case 'registration.awaiting':
      return credential('REGISTER');
    case 'authentication.awaiting':
      return credential('AUTHENTICATE');
    case 'registration.verifying':
      return [
        done('verifyRegistration', REGISTERED, 'ok'),
        fail('verifyRegistration', new InvalidCheck('used'), 'replay'),
        fail('verifyRegistration', new WebAuthnVerificationError('origin'), 'wrongOrigin'),
      ];
    case 'registration.checkingSignIn':
    case 'authentication.checkingSignIn':
      return signInOutcomes;
    case 'registration.storing':
      return [
        done('storeRegistration', { user: MEMBER, account: ACCOUNT, created: !c.registrant?.userId }, 'ok'),
        fail('storeRegistration', new AccountNotLinked('changed'), 'conflict'),
        fail('storeRegistration', new AdapterError('down'), 'fault:createAuthenticator'),
      ];
    case 'authentication.findingAuthenticator':
      return [
        done('findAuthenticator', AUTHENTICATOR, 'ok'),
        done('findAuthenticator', null, 'unknownCredential'),
        fail('findAuthenticator', new WebAuthnVerificationError('no id'), 'malformed'),
        fail('findAuthenticator', new AdapterError('down'), 'fault:getAuthenticator'),
      ];
    case 'authentication.verifying':
      return [
        done('verifyAuthentication', { newCounter: 2 }, 'ok'),
        fail('verifyAuthentication', new InvalidCheck('used'), 'replay'),
        fail('verifyAuthentication', new WebAuthnVerificationError('signature'), 'badSignature'),
        fail('verifyAuthentication', new Error('stored key'), 'corruptKey'),
      ];
    case 'authentication.updatingCounter':
      return [done('updateCounter', undefined, 'ok'), fail('updateCounter', new AdapterError('down'), 'fault:updateAuthenticatorCounter')];
    case 'authentication.findingOwner':
      return [
        done('findOwner', { user: OWNER, account: ACCOUNT }, 'ok'),
        done('findOwner', { user: OWNER, account: ACCOUNT, currentUserId: 'member' }, 'signedInAsAnother'),
        fail('findOwner', new AdapterError('down'), 'fault:getAccount'),
      ];
    case 'issuingSession':
      return [
        done('issueSession', undefined, 'ok'),
        fail('issueSession', new AccessDenied('jwt'), 'jwtRefuses'),
        fail('issueSession', new AdapterError('down'), 'fault:createSession'),
      ];
    default:
      return [];
  }
}

const paths = modelPaths(webauthnMachine, { events, input: { callbackUrl: `${ORIGIN}/`, providerId: 'passkey', startedAt: T0 } });

/** The transitions a path prescribes, from the machine alone (invokes never settle; the path's events decide). */
function prescribed(path: ModelPath): string[] {
  const never = fromPromise(() => new Promise<never>(() => {}));
  const actors = Object.fromEntries(Object.keys(webauthnMachine.implementations.actors).map((k) => [k, never]));
  const trace: TraceEntry[] = [];
  const actor = createActor(webauthnMachine.provide({ actors } as never), {
    input: { callbackUrl: `${ORIGIN}/`, providerId: 'passkey', startedAt: T0 },
    inspect: (ev) => trace.push(...traceEntriesFromMicrostep(ev)),
  });
  actor.start();
  for (const event of path.events) actor.send(event as never);
  actor.stop();
  return trace.map(transitionKey);
}

// ---- making a path happen ----------------------------------------------------------------------------------------

const hows = (path: ModelPath) => new Set(path.events.map((e) => String((e as { how?: string }).how)));
const faultOf = (path: ModelPath, phase: 'options' | 'callback') => {
  const optionsPhase = new Set(['resolveUser', 'registrationOptions', 'authenticationOptions'].map((id) => `xstate.error.actor.${id}`));
  const event = path.events.find((e) => String((e as { how?: string }).how).startsWith('fault:') && optionsPhase.has(e.type) === (phase === 'options'));
  return event ? String((event as unknown as { how: string }).how).slice('fault:'.length) : undefined;
};

const expectedErrors: Record<string, string[]> = {
  'failed.invalidRequest': ['InvalidRequest'],
  'failed.accountNotLinked': ['AccountNotLinked'],
  'failed.invalidCheck': ['InvalidCheck'],
  'failed.webAuthnVerification': ['WebAuthnVerificationError'],
  'failed.accessDenied': ['AccessDenied'],
  'failed.callbackRoute': ['CallbackRouteError', 'AdapterError'],
};
const publicType: Record<string, string> = { AccountNotLinked: 'AccountNotLinked', WebAuthnVerificationError: 'WebAuthnVerificationError', AccessDenied: 'AccessDenied' };

let world: World;
const coverage = createCoverage(webauthnMachine);

beforeAll(async () => {
  world = await createWorld();
});
afterEach(() => {
  vi.useRealTimers();
  world.faults.clear();
});
afterAll(async () => {
  console.log(`model paths: ${paths.length}\n${coverage.format()}`);
  await world?.close();
});

async function realize(path: ModelPath) {
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(new Date('2030-01-01T00:00:00Z'));
  const how = hows(path);
  const options = path.events[0] as { action?: string; email?: string };
  const authenticating = path.events.some((e) => e.type === 'AUTHENTICATE');
  const t = authOn(world, how.has('jwtRefuses') ? { session: { strategy: 'jwt' } } : {});
  const client = t.client;

  const member = await seedUser(world);
  const owner = await seedUser(world, uniqueEmail('owner'));
  const soft = new SoftAuthenticator(ORIGIN);
  await seedPasskey(world, owner, soft);

  // Who is signed in when the options are asked for.
  if (how.has('signedInAsAnother') || how.has('fault:getUser')) await signInAs(t, client, member.email);
  else if (how.has('signedIn')) await signInAs(t, client, authenticating ? owner.email : member.email);

  const email = options.email === 'new' ? uniqueEmail('new') : undefined;
  const optionsFault = faultOf(path, 'options');
  if (optionsFault) world.faults.add(optionsFault);
  const optionsRes = await getOptions(client, { action: options.action, email });
  world.faults.clear();
  let final = optionsRes;

  if (path.finalState.endsWith('.awaiting')) return { t, final, taken: takenBy(t), paused: true };
  if (path.events.some((e) => e.type === 'REGISTER' || e.type === 'AUTHENTICATE')) {
    expect(optionsRes.status, path.description).toBe(200);
    const { action, options: publicKey } = (await optionsRes.json()) as { action: string; options: never };
    expect(action).toBe(authenticating ? 'authenticate' : 'register');
    // A registration brings a new device; an authentication uses the owner's, unless the path wants a stranger's.
    const device = !authenticating || how.has('unknownCredential') ? new SoftAuthenticator(ORIGIN) : soft;
    const answer = () => {
      if (how.has('malformed')) return 'not json';
      if (!authenticating) return device.register(publicKey, how.has('wrongOrigin') ? { origin: 'http://evil.example' } : {});
      return device.authenticate(publicKey, how.has('badSignature') ? { badSignature: true } : {});
    };
    const data = answer();
    const flowCookie = client.cookies.get(FLOW_COOKIE)!;

    if (how.has('replay')) {
      // The genuine answer goes through first; then the same cookie and answer come again.
      const first = await postCredential(t, client, action, data);
      expect(first.location?.href).toBe(`${ORIGIN}/after`);
      client.cookies.set(FLOW_COOKIE, flowCookie, new URL(ORIGIN));
    }
    if (how.has('conflict')) {
      // Someone signed in meanwhile (the passkey was for a new user), or the user it was for signed out.
      if (!how.has('signedIn')) await signInAs(t, client, member.email);
      else {
        const csrfToken = await t.csrfToken(client);
        await client.post('/auth/signout', { csrfToken });
      }
    }
    if (how.has('corruptKey')) await world.db.query('UPDATE authenticators SET credential_public_key = $1 WHERE credential_id = $2', ['AAAA', soft.row(owner.id).credentialID]);
    if (how.has('late')) vi.setSystemTime(Date.now() + 6 * 60_000);
    const callbackFault = faultOf(path, 'callback');
    if (callbackFault) world.faults.add(callbackFault);
    for (const k of ['signIn:deny', 'signIn:redirect', 'signIn:throw'] as const) if (how.has(k)) t.knobs.signIn = k.slice(7) as never;
    t.knobs.refuseJwt = how.has('jwtRefuses');
    final = await postCredential(t, client, action, data);
  }

  return { t, final, taken: takenBy(t), paused: false };
}

/** Records every run into the coverage; returns the transitions of the options run and of the run that ended it. */
function takenBy(t: ReturnType<typeof authOn>): string[] {
  const runs = webauthnRuns(t);
  for (const run of runs) coverage.record(run.trace as TraceEntry[]);
  return [runs[0], ...(runs.length > 1 ? [runs.at(-1)!] : [])].flatMap((r) => r.trace.map(transitionKey));
}

describe('webauthn machine, model-based through HTTP', () => {
  it('has paths that reach every final state', () => {
    const finals = new Set(paths.map((p) => p.finalState));
    for (const state of ['done', 'redirected', ...Object.keys(expectedErrors)]) expect(finals, state).toContain(state);
  });

  for (const path of paths) {
    it(path.description, async () => {
      const { t, final, taken, paused } = await realize(path);
      expect(taken, 'the real run took the transitions the model path prescribes').toEqual(prescribed(path));
      if (paused) {
        // The flow waits for the browser: options as JSON, the challenge sealed in the flow cookie.
        expect(final.status).toBe(200);
        expect(((await final.json()) as { options: { challenge: string } }).options.challenge).toMatch(/^[\w-]{43}$/);
        expect(final.setCookie.some((line) => line.startsWith(`${FLOW_COOKIE}=ey`))).toBe(true);
        return;
      }
      const sessionWrites = final.setCookie.filter((line) => line.startsWith(`${SESSION_COOKIE}=`) && !/Max-Age=0/i.test(line) && !line.startsWith(`${SESSION_COOKIE}=;`));
      expect(final.status).toBe(302);
      if (path.finalState === 'done') {
        expect(final.location?.href).toBe(`${ORIGIN}/after`);
        expect(sessionWrites).toHaveLength(1);
        expect(t.logger.errors).toEqual([]);
        return;
      }
      expect(sessionWrites, 'a failure never sets a session').toEqual([]);
      if (path.finalState === 'redirected') {
        expect(final.location?.href).toBe(REDIRECT_ELSEWHERE);
        return;
      }
      const logged = t.logger.errorTypes().at(-1)!;
      expect(expectedErrors[path.finalState]).toContain(logged);
      expect(final.location?.searchParams.get('error')).toBe(publicType[logged] ?? 'Configuration');
    }, 30_000);
  }

  it('covers every state and transition of the machine from real runs', () => {
    coverage.assertComplete();
    expect(coverage.report().transitions.covered).toBe(coverage.report().transitions.total);
  });
});
