// One rule for every flow that sets a password: the Password provider's top-level `minLength` (and `breached`) apply
// at sign-up, recovery and change alike; `signUp.minLength` and `change.minLength` override it for their own flow.
import { describe, expect, it } from 'vitest';
import type { FlowDeps } from '../../src/flows/runtime/contract.js';
import { hashNew } from '../../src/flows/password/change-steps.js';
import { resetPassword } from '../../src/flows/password/recovery-steps.js';
import { prepareSignUp } from '../../src/flows/password/signup-steps.js';
import { argon2id, Password, type PasswordConfig } from '../../src/providers/password/index.js';

const ELEVEN = 'abcdefghijk';
const TWELVE = 'abcdefghijkl';
const hasher = argon2id({ memoryCost: 1024, timeCost: 1 });

/** The three flows' verdict on `password` under `provider`: refused ('too_short', …) or accepted ('ok'). */
async function verdicts(provider: PasswordConfig, password: string): Promise<Record<'signUp' | 'recovery' | 'change', string>> {
  const deps = { provider, req: { config: { providersById: new Map([[provider.id, provider]]) } } } as unknown as FlowDeps;
  const signUp = await prepareSignUp({ input: { deps, email: 'ada@example.test', password, name: '' } });
  // The rules come before anything is looked up: an accepted password goes on to the (absent) store and throws.
  const recovery = await resetPassword({ input: { deps, tokenHash: 'x', password } }).then(
    (r) => (r.result === 'refused' ? r.problem : r.result),
    () => 'ok',
  );
  const change = await hashNew({ input: { deps: deps as never, password } });
  return {
    signUp: signUp.ok ? 'ok' : 'problem' in signUp ? String(signUp.problem) : signUp.field,
    recovery: String(recovery),
    change: 'problem' in change ? change.problem : 'ok',
  };
}

describe('the Password provider\'s rules for a new password', () => {
  it('Password({ minLength: 12 }) refuses 11 characters at sign-up, recovery and change, and takes 12', async () => {
    const provider = Password({ hasher, minLength: 12 });
    expect(await verdicts(provider, ELEVEN)).toEqual({ signUp: 'too_short', recovery: 'too_short', change: 'too_short' });
    expect(await verdicts(provider, TWELVE)).toEqual({ signUp: 'ok', recovery: 'ok', change: 'ok' });
  });

  it('the top-level breached lookup refuses at sign-up, recovery and change', async () => {
    const provider = Password({ hasher, breached: async (p) => p === TWELVE });
    expect(await verdicts(provider, TWELVE)).toEqual({ signUp: 'breached', recovery: 'breached', change: 'breached' });
  });

  it('signUp.minLength and change.minLength override the top-level one for their flow only', async () => {
    const provider = Password({ hasher, minLength: 12, signUp: { minLength: 8 }, change: { minLength: 14 } });
    expect(await verdicts(provider, ELEVEN)).toEqual({ signUp: 'ok', recovery: 'too_short', change: 'too_short' });
    expect(await verdicts(provider, `${TWELVE}xx`)).toEqual({ signUp: 'ok', recovery: 'ok', change: 'ok' });
  });

  it('a top-level minLength outside 8 to 64 is a TypeError at start-up', () => {
    expect(() => Password({ minLength: 7 })).toThrow(TypeError);
    expect(() => Password({ minLength: 65 })).toThrow(TypeError);
  });
});
