// Model-based tests of the SAML machine: paths generated from `samlMachine`, each played for real through the HTTP
// layer (the test IdP's signed responses, PGlite, the admin API), steered into its branch by what a real deployment
// could meet: a connection without an IdP certificate, an IdP-initiated response to a connection that allows it, a response too late or with another RelayState, a
// forged one, a connection whose certificate was removed meanwhile, a replay, a flow store or domain table that
// fails, an address outside the verified domains, no flow cookie at all. The traces the runtime logs must follow the
// model path exactly, and together must cover every state and transition.
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { OAuthSignInError, SamlResponseRefused, SsoAddressRefused } from '../../../src/core/errors.js';
import type { TraceEntry } from '../../../src/devtools/graph.js';
import { SAML_FLOW_TTL_MS } from '../../../src/flows/saml/options.js';
import { samlMachine } from '../../../src/flows/saml/machine.js';
import type { FlowDeps } from '../../../src/flows/runtime/contract.js';
import type { ClientResponse } from '../../support/client.js';
import { createCoverage } from '../../support/flow-coverage.js';
import { modelPaths, type ModelPath } from '../../support/model-paths.js';
import { loggedTraces, setsSession } from '../../e2e/oauth/harness.js';
import { startSamlSignIn, startSamlWorld, type SamlWorld } from '../../e2e/peers/saml-world.js';
import { done, failed, type Labelled } from '../../support/model-events.js';

const assertion = { id: '_a', issuer: 'idp', nameId: 'n', nameIdFormat: null, email: 'a@acme.test', name: null, notOnOrAfter: 0 };

const all: Labelled[] = [
  { type: 'START', branch: 'start' },
  { type: 'RESPONSE', at: 1_000, branch: 'no flow cookie' },
  { type: 'RESPONSE', at: 1_000, idpInitiated: true, branch: 'idp-initiated allowed' },
  done('prepare', 'prepared', { url: 'https://idp.test/sso', requestId: '_r', relayState: 'rs' }),
  failed('prepare', 'no IdP certificate', new OAuthSignInError('x')),
  { type: 'RESPONSE', relayState: 'rs', at: 1_000, branch: 'response' },
  { type: 'RESPONSE', relayState: 'rs', at: SAML_FLOW_TTL_MS + 1_000, branch: 'too late' },
  { type: 'RESPONSE', relayState: 'another', at: 1_000, branch: 'other relay state' },
  done('validate', 'valid', assertion),
  failed('validate', 'forged', new SamlResponseRefused('x')),
  failed('validate', 'certificate removed', new Error('x')),
  done('spend', 'first use', 'fresh'),
  done('spend', 'replay', 'replayed'),
  failed('spend', 'flow store fails', new Error('x')),
  done('admit', 'admitted'),
  failed('admit', 'address outside', new SsoAddressRefused('x')),
  failed('admit', 'domains fail', new Error('x')),
];
const modelInput = { deps: {} as FlowDeps, callbackUrl: 'http://localhost:3000/dashboard', providerId: 'model', startedAt: 0 };
// From idle, a response can only be one no flow cookie carries; once started, never that one.
const fresh = (e: Labelled) => e.branch === 'start' || e.branch === 'no flow cookie' || e.branch === 'idp-initiated allowed';
// An IdP-initiated response (no request id) runs the same checks as any: its paths need only the branches of its own.
const idpInitiated = (s: { value: unknown; context: { requestId?: string } }) => !['"idle"', '"preparing"'].includes(JSON.stringify(s.value)) && s.context.requestId === undefined;
const idpBranches = new Set(['valid', 'first use', 'replay', 'admitted']);
const paths = modelPaths(samlMachine, {
  events: (snapshot) => all.filter((e) => (JSON.stringify(snapshot.value) === '"idle"') === fresh(e) && (!idpInitiated(snapshot) || idpBranches.has(e.branch))),
  input: modelInput,
  stateKey: (s) => JSON.stringify(s.value) + (idpInitiated(s) ? ' (IdP-initiated)' : ''),
});
const labels = (p: ModelPath) => p.events.map((e) => (e as Labelled).branch);

let w: SamlWorld;
const coverage = createCoverage(samlMachine);
beforeAll(async () => {
  w = await startSamlWorld({ extra: { activity: {} } });
}, 60_000);
afterEach(() => {
  vi.useRealTimers();
});
afterAll(async () => {
  console.log(`flow coverage: ${coverage.format()}`);
  await w?.stop();
});

const acs = () => `/auth/sso/saml/${w.connectionId}/acs`;
const b64 = (xml: string) => Buffer.from(xml, 'utf8').toString('base64');

async function updateConnection(body: Record<string, string>) {
  const res = await w.adminPost(`/organizations/sso/connections/${w.connectionId}`, body);
  expect(res.status, await res.clone().text()).toBe(200);
}

/** Plays the path's branches for real; the ACS answer (or the start's, when the path ends there). */
async function play(l: string[]): Promise<ClientResponse> {
  if (l[0] === 'no flow cookie') {
    const request = { id: '_none', acsUrl: `http://localhost:3000${acs()}`, issuer: `http://localhost:3000/auth/sso/saml/${w.connectionId}/metadata`, relayState: null };
    return w.a.newClient().post(acs(), { SAMLResponse: b64(w.idp.responseXml(request, 'alice', { inResponseTo: null })) });
  }
  if (l[0] === 'idp-initiated allowed') {
    await updateConnection({ allowIdpInitiated: 'true' });
    try {
      const request = { id: '', acsUrl: `http://localhost:3000${acs()}`, issuer: `http://localhost:3000/auth/sso/saml/${w.connectionId}/metadata`, relayState: null };
      const form = { SAMLResponse: b64(w.idp.responseXml(request, 'alice', { inResponseTo: null })) };
      if (l.includes('replay')) expect(setsSession(await w.a.newClient().post(acs(), form))).toBe(true);
      return await w.a.newClient().post(acs(), form);
    } finally {
      await updateConnection({ allowIdpInitiated: 'false' });
    }
  }
  if (l.includes('no IdP certificate')) {
    await updateConnection({ idpCertificates: ' ' });
    try {
      const client = w.a.newClient();
      return await client.post('/auth/sso', { csrfToken: await w.a.csrfToken(client), email: 'alice@acme.test' });
    } finally {
      await updateConnection({ idpCertificates: w.idp.keys.cert });
    }
  }
  const account = l.includes('address outside') ? 'mallory' : 'alice';
  const { client, start } = await startSamlSignIn(w, 'alice@acme.test');
  const nav = await w.idp.login(start.location!.href, account, l.includes('forged') ? { signAssertion: false } : {});
  const form = { ...nav.form! };
  if (l.includes('other relay state')) form.RelayState = 'another';
  const cookie = client.cookies.header(nav.url);
  const undo: (() => Promise<unknown>)[] = [];
  try {
    if (l.includes('too late')) {
      vi.useFakeTimers({ toFake: ['Date'] });
      vi.setSystemTime(Date.now() + SAML_FLOW_TTL_MS + 5_000);
    }
    if (l.includes('certificate removed')) {
      await updateConnection({ idpCertificates: ' ' });
      undo.push(() => updateConnection({ idpCertificates: w.idp.keys.cert }));
    }
    if (l.includes('replay')) expect(setsSession(await w.a.newClient().post(acs(), form, { headers: { cookie } }))).toBe(true);
    if (l.includes('flow store fails')) {
      await w.db.exec('ALTER TABLE flow_store RENAME TO flow_store_away');
      undo.push(() => w.db.exec('ALTER TABLE flow_store_away RENAME TO flow_store'));
    }
    if (l.includes('domains fail')) {
      await w.db.exec('ALTER TABLE organization_domains RENAME TO organization_domains_away');
      undo.push(() => w.db.exec('ALTER TABLE organization_domains_away RENAME TO organization_domains'));
    }
    return await w.a.newClient().post(acs(), form, { headers: { cookie } });
  } finally {
    for (const u of undo) await u();
  }
}

describe('the SAML machine, model paths played against the test IdP and PGlite', () => {
  it('reaches every final state', () => {
    expect([...new Set(paths.map((p) => p.finalState))].sort()).toEqual([
      'authenticated', 'failed.addressRefused', 'failed.callbackRoute', 'failed.expired', 'failed.refused', 'failed.replayed', 'failed.signInError', 'failed.unsolicited',
    ]);
  });

  it.each(paths.map((p) => [`${p.description} [${labels(p).join(', ')}]`, p] as const))('%s', async (_name, path) => {
    w.a.logger.debugs.length = 0;
    const l = labels(path);
    const res = await play(l);
    expect(res.status).toBeLessThan(500);
    expect(setsSession(res)).toBe(path.finalState === 'authenticated');
    // The runs of this sign-in (start, then the ACS; a replay's first use was cleared above), in order.
    // The runs of this sign-in: the start, then the ACS (a replay's first, accepted use in between is not this path).
    const runs = loggedTraces(w.a, 'saml');
    const ours = l[0] === 'idp-initiated allowed' ? [runs.at(-1)!] : runs.length > 2 ? [runs[0]!, runs.at(-1)!] : runs;
    const trace: TraceEntry[] = ours.flatMap((r) => r.trace).filter((e) => e.machine === undefined);
    coverage.record(trace);
    expect(trace.map((e) => e.event)).toEqual(path.events.map((e) => e.type));
    expect(trace.at(-1)?.to).toBe(path.finalState);
    // The activity log: the run that ended the flow left one record of its outcome, from this machine (a first
    // sign-in also leaves signUp.completed). A replay of the same flow cookie shares the flow's id: its first, accepted
    // use is recorded beside the refused one.
    const last = w.a.logger.debugs.filter((d) => d.message.startsWith('flow saml ')).at(-1)!;
    const id = (last.metadata as { id: string }).id;
    const records = (await w.db.query<{ kind: string; machine: string | null }>("SELECT kind, machine FROM activity WHERE correlation_id = $1 AND kind LIKE 'signIn.%'", [id])).rows;
    const replayedCookie = path.finalState === 'failed.replayed' && l[0] !== 'idp-initiated allowed';
    const outcome = path.finalState === 'authenticated' ? 'signIn.succeeded' : 'signIn.failed';
    expect(records.map((r) => r.kind).sort()).toEqual([...(replayedCookie ? ['signIn.succeeded'] : []), outcome].sort());
    expect(records.every((r) => r.machine === 'saml')).toBe(true);
  });

  it('covers every state and transition', () => {
    console.log(coverage.format());
    coverage.assertComplete();
  });
});
