// The example custom flow (examples/custom-flow) driven in process through the public driver, `testFlow` from
// authchart/flow, with no HTTP: every state and transition of its machine is reached (createCoverage says 100 %),
// on an embedded PostgreSQL whose token methods can be made to fail.
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Adapter } from 'authchart';
import { testFlow, type TestFlowResult } from 'authchart/flow';
import { createCoverage } from 'authchart/devtools';
import { emailCodeMachine } from '../../examples/custom-flow/machine.js';
import { EmailCode } from '../../examples/custom-flow/provider.js';
import { useMigratedPGlite } from '../support/pglite.js';

const pg = useMigratedPGlite();
const outbox: { email: string; code: string }[] = [];
const bounce = new Set<string>();
const failCreate = new Set<string>();
const failUse = new Set<string>();
const coverage = createCoverage(emailCodeMachine);
let n = 0;
const address = () => `driver-${++n}@example.test`;

function browser() {
  const real = pg.adapter;
  const adapter: Adapter = {
    ...real,
    createVerificationToken: async (t) => {
      if (failCreate.has(t.identifier)) throw new Error('database unreachable');
      return real.createVerificationToken(t);
    },
    useVerificationToken: async (p) => {
      if (failUse.has(p.identifier)) throw new Error('database unreachable');
      return real.useVerificationToken(p);
    },
  };
  const send = ({ email, code }: { email: string; code: string }) => {
    if (bounce.has(email)) throw new Error('mailbox unavailable');
    outbox.push({ email, code });
  };
  const driver = testFlow(EmailCode({ send }), { adapter });
  return {
    driver,
    async step(run: Promise<TestFlowResult>): Promise<TestFlowResult> {
      const result = await run;
      coverage.record(result.trace);
      return result;
    },
  };
}
const codeOf = (email: string) => outbox.find((s) => s.email === email)!.code;
const failureType = (r: TestFlowResult) => (r.status === 'failed' ? r.error.type : r.status);

afterEach(() => vi.useRealTimers());

describe('the e-mail code flow through testFlow', () => {
  it('signs in with the code it sent, then the session is live', async () => {
    const { driver, step } = browser();
    const email = address();
    expect((await step(driver.signIn({ email }))).status).toBe('paused');
    expect(driver.paused).toBe(true);
    const done = await step(driver.callback({ code: codeOf(email) }));
    expect(done).toMatchObject({ status: 'signedIn', isNewUser: true });
    expect(driver.paused).toBe(false);
  });

  it('refuses a bad address, a code with no flow, a wrong code, a spent token and an expired code', async () => {
    const b = browser();
    expect(failureType(await b.step(b.driver.signIn({ email: 'not an address' })))).toBe('EmailSignInError');
    expect(failureType(await b.step(b.driver.callback({ code: '123456' })))).toBe('Verification');

    const email = address();
    await b.step(b.driver.signIn({ email }));
    const wrong = codeOf(email) === '000000' ? '111111' : '000000';
    expect(failureType(await b.step(b.driver.callback({ code: wrong })))).toBe('Verification');

    const spent = browser();
    const other = address();
    await spent.step(spent.driver.signIn({ email: other }));
    // The token is used elsewhere (a replayed cookie got there first): the code finds it gone.
    await pg.db.query(`DELETE FROM verification_token WHERE identifier = $1`, [`email-code:${other}`]);
    expect(failureType(await spent.step(spent.driver.callback({ code: codeOf(other) })))).toBe('Verification');

    vi.useFakeTimers({ toFake: ['Date'] });
    const late = browser();
    const third = address();
    await late.step(late.driver.signIn({ email: third }));
    vi.setSystemTime(Date.now() + 11 * 60_000);
    expect(failureType(await late.step(late.driver.callback({ code: codeOf(third) })))).toBe('Verification');
  });

  it('ends a failing delivery or database as a typed error, never a session', async () => {
    const b = browser();
    const bounced = address();
    bounce.add(bounced);
    expect(failureType(await b.step(b.driver.signIn({ email: bounced })))).toBe('EmailSignInError');
    const noStore = address();
    failCreate.add(`email-code:${noStore}`);
    expect(failureType(await b.step(b.driver.signIn({ email: noStore })))).toBe('AdapterError');
    const noUse = address();
    await b.step(b.driver.signIn({ email: noUse }));
    failUse.add(`email-code:${noUse}`);
    expect(failureType(await b.step(b.driver.callback({ code: codeOf(noUse) })))).toBe('AdapterError');
  });

  it('reaches every state and transition of the machine', () => {
    const report = coverage.report();
    expect(report.states.missing, 'states').toEqual([]);
    expect(report.transitions.missing, 'transitions').toEqual([]);
    expect(() => coverage.assertComplete()).not.toThrow();
  });
});
