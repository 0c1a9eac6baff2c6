// Model-based tests of the WebAuthn flow. The paths come from the machine's graph (every transition); each is
// then made to happen for real, through the HTTP layer, on PostgreSQL (PGlite) with responses from a software
// authenticator that @simplewebauthn/server verifies. The real run must take exactly the path's transitions,
// and the coverage counted from the runtime's own traces must reach 100 % of states and transitions. A path ends
// where the flow does (`authenticated` or a failure); the sign-in tail then runs with its defaults and must sign
// the browser in; its own branches after a ceremony are in webauthn-http.test.ts.
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createActor, fromPromise, type AnyEventObject, type AnyMachineSnapshot } from 'xstate';
import { AdapterError, InvalidCheck, WebAuthnVerificationError } from '../../../src/core/errors.js';
import { traceEntriesFromMicrostep, transitionKey, type TraceEntry } from '../../../src/devtools/graph.js';
import { webauthnMachine, type WebAuthnContext } from '../../../src/flows/webauthn/machine.js';
import { ORIGIN } from '../../support/auth-app.js';
import { createCoverage } from '../../support/flow-coverage.js';
import { modelPaths, type ModelPath } from '../../support/model-paths.js';
import { SoftAuthenticator } from './webauthn-authenticator.js';
import {
  authOn,
  createWorld,
  FLOW_COOKIE,
  getOptions,
  passkeyOwner,
  postCredential,
  seedPasskey,
  seedUser,
  SESSION_COOKIE,
  sessionUserId,
  signInAs,
  uniqueEmail,
  lastTailState,
  webauthnRuns,
  type World,
} from './webauthn-world.js';

// ---- the model: which events each state may meet, each tagged with how the test makes it happen ----------------

const done = (id: string, output: unknown, how: string) => ({ type: `xstate.done.actor.${id}`, output, how });
const fail = (id: string, error: unknown, how: string) => ({ type: `xstate.error.actor.${id}`, error, how });

const T0 = 1_000_000;
const OPTIONS_OUT = { options: {}, challenge: 'challenge', expiresAt: T0 + 300_000 };
const MEMBER = { id: 'member', email: 'member@example.test', emailVerified: null };
const REGISTERED = { credentialID: 'cred', credentialPublicKey: 'key', counter: 0, credentialDeviceType: 'singleDevice', credentialBackedUp: false };
const AUTHENTICATOR = { ...REGISTERED, userId: 'owner', providerAccountId: 'cred' };
const credential = (type: 'REGISTER' | 'AUTHENTICATE') => [
  { type, credential: { id: 'cred' }, callbackUrl: '/after', at: T0 + 1_000, how: 'onTime' },
  { type, credential: { id: 'cred' }, callbackUrl: '/after', at: T0 + 600_000, how: 'late' },
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
    case 'choosingCeremony':
      return [
        done('findSessionUser', { sessionUser: null }, 'signedOut'),
        done('findSessionUser', { sessionUser: MEMBER }, 'signedIn'),
        // Only a session's user is looked up, so only a signed-in request has a lookup to fail.
        fail('findSessionUser', new AdapterError('down'), 'fault:getUser'),
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
    default:
      return [];
  }
}

// No deps: the paths are computed without running an actor.
const INPUT = { deps: undefined, callbackUrl: `${ORIGIN}/`, providerId: 'passkey', startedAt: T0 };
const paths = modelPaths(webauthnMachine, { events, input: INPUT });

/** The transitions a path prescribes, from the machine alone (invokes never settle; the path's events decide). */
function prescribed(path: ModelPath): string[] {
  const never = fromPromise(() => new Promise<never>(() => {}));
  const actors = Object.fromEntries(Object.keys(webauthnMachine.implementations.actors).map((k) => [k, never]));
  const trace: TraceEntry[] = [];
  const actor = createActor(webauthnMachine.provide({ actors } as never), {
    input: INPUT as never,
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
  const optionsPhase = new Set(['findSessionUser', 'registrationOptions', 'authenticationOptions'].map((id) => `xstate.error.actor.${id}`));
  const event = path.events.find((e) => String((e as { how?: string }).how).startsWith('fault:') && optionsPhase.has(e.type) === (phase === 'options'));
  return event ? String((event as unknown as { how: string }).how).slice('fault:'.length) : undefined;
};

const expectedErrors: Record<string, string[]> = {
  'failed.invalidRequest': ['InvalidRequest'],
  'failed.invalidCheck': ['InvalidCheck'],
  'failed.webAuthnVerification': ['WebAuthnVerificationError'],
  'failed.callbackRoute': ['CallbackRouteError', 'AdapterError'],
};
const publicType: Record<string, string> = { WebAuthnVerificationError: 'WebAuthnVerificationError', InvalidRequest: 'InvalidRequest' };

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
  const t = authOn(world, { activity: {} });
  const client = t.client;

  const member = await seedUser(world);
  const owner = await seedUser(world, uniqueEmail('owner'));
  const soft = new SoftAuthenticator(ORIGIN);
  await seedPasskey(world, owner, soft);

  // Who is signed in when the options are asked for (an authentication signs the passkey's owner in again).
  if (how.has('fault:getUser')) await signInAs(t, client, member.email!);
  else if (how.has('signedIn')) await signInAs(t, client, authenticating ? owner.email! : member.email!);

  const email = options.email === 'new' ? uniqueEmail('new') : undefined;
  const optionsFault = faultOf(path, 'options');
  if (optionsFault) world.faults.add(optionsFault);
  const optionsRes = await getOptions(client, { action: options.action, email });
  world.faults.clear();
  let final = optionsRes;

  if (path.finalState.endsWith('.awaiting')) return { t, final, taken: takenBy(t), paused: true, member, owner, device: soft };
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
    if (how.has('corruptKey')) await world.db.query('UPDATE authenticators SET credential_public_key = $1 WHERE credential_id = $2', ['AAAA', soft.row(owner.id).credentialID]);
    if (how.has('late')) vi.setSystemTime(Date.now() + 6 * 60_000);
    const callbackFault = faultOf(path, 'callback');
    if (callbackFault) world.faults.add(callbackFault);
    final = await postCredential(t, client, action, data);
    return { t, final, taken: takenBy(t), paused: false, member, owner, device };
  }

  return { t, final, taken: takenBy(t), paused: false, member, owner, device: soft };
}

/**
 * Records every run into the coverage; returns the flow's own transitions of the options run and of the run that
 * ended it (the sign-in tail's, in the same runs, are not the flow's).
 */
function takenBy(t: ReturnType<typeof authOn>): string[] {
  const runs = webauthnRuns(t).map((r) => r.trace.filter((e) => e.machine === undefined) as TraceEntry[]);
  for (const trace of runs) coverage.record(trace);
  return [runs[0], ...(runs.length > 1 ? [runs.at(-1)!] : [])].flatMap((trace) => trace.map(transitionKey));
}

describe('webauthn machine, model-based through HTTP', () => {
  it('has paths that reach every final state', () => {
    const finals = new Set(paths.map((p) => p.finalState));
    for (const state of ['authenticated', ...Object.keys(expectedErrors)]) expect(finals, state).toContain(state);
  });

  for (const path of paths) {
    it(path.description, async () => {
      const { t, final, taken, paused, member, owner, device } = await realize(path);
      expect(taken, 'the real run took the transitions the model path prescribes').toEqual(prescribed(path));
      // The activity log: the run that ended the flow left one record of its outcome, from this machine; a paused
      // flow none yet. A replayed flow cookie shares the flow's id: its first, accepted use is recorded beside it.
      const flowId = (t.logger.debugs.filter((d) => d.message.startsWith('flow webauthn ')).at(-1)!.metadata as { id: string }).id;
      const records = (await world.db.query<{ kind: string; machine: string | null }>("SELECT kind, machine FROM activity WHERE correlation_id = $1 AND kind LIKE 'signIn.%'", [flowId])).rows;
      const outcome = paused ? [] : [path.finalState === 'authenticated' ? 'signIn.succeeded' : 'signIn.failed'];
      expect(records.map((r) => r.kind).sort(), 'the outcome\'s record').toEqual([...(hows(path).has('replay') ? ['signIn.succeeded'] : []), ...outcome].sort());
      expect(records.every((r) => r.machine === 'webauthn')).toBe(true);
      if (paused) {
        // The flow waits for the browser: options as JSON, the challenge sealed in the flow cookie.
        expect(final.status).toBe(200);
        expect(((await final.json()) as { options: { challenge: string } }).options.challenge).toMatch(/^[\w-]{43}$/);
        expect(final.setCookie.some((line) => line.startsWith(`${FLOW_COOKIE}=ey`))).toBe(true);
        return;
      }
      const sessionWrites = final.setCookie.filter((line) => line.startsWith(`${SESSION_COOKIE}=`) && !/Max-Age=0/i.test(line) && !line.startsWith(`${SESSION_COOKIE}=;`));
      expect(final.status).toBe(302);
      if (path.finalState === 'authenticated') {
        // The tail took it from there, with its defaults: signed in, as the passkey's user.
        expect(lastTailState(t)).toBe('resolved');
        expect(final.location?.href).toBe(`${ORIGIN}/after`);
        expect(sessionWrites).toHaveLength(1);
        expect(t.logger.errors).toEqual([]);
        const user = await passkeyOwner(world, device.credentialId.toString('base64'));
        if (path.events.some((e) => e.type === 'AUTHENTICATE')) expect(user.id).toBe(owner.id);
        // A registration's passkey joins whom its options were made for: the signed-in member, or a new user without an address.
        else if (hows(path).has('signedIn')) expect(user.id).toBe(member.id);
        else expect(user).toMatchObject({ email: null, emailVerified: null });
        expect(await sessionUserId(t.client)).toBe(user.id);
        return;
      }
      expect(lastTailState(t), 'a failed ceremony never reaches the sign-in tail').toBeUndefined();
      expect(sessionWrites, 'a failure never sets a session').toEqual([]);
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
