// A custom flow that proves the identity its provider carries, in one request: the carrier the sign-in tail's
// model test uses for account types whose built-in flows it does not drive (oauth, email, webauthn). Written
// against the package entry only, as any custom provider's flow is.
import { type Account, type CommonProviderOptions, type Profile, type User } from 'authchart';
import { defineFlow, type FlowDeps, type FlowInput, type FlowOutput, type Identity } from 'authchart/flow';
import { assign, fromPromise, setup } from 'xstate';

/** What the flow proves: a flow's `authenticated` output without `outcome` (plus a new passkey, as WebAuthn hands one). */
export interface ProvenIdentity {
  user: User;
  account: Omit<Account, 'provider'> & { provider?: string };
  profile?: Profile;
  passkey?: Identity['passkey'];
}

/** A provider whose flow proves `identity`. Its `type` is no built-in one: a custom provider may name any. */
export type IdentityProvider = CommonProviderOptions & { identity: ProvenIdentity; allowDangerousEmailAccountLinking?: boolean };

interface IdentityContext {
  deps: FlowDeps;
  callbackUrl: string;
  providerId: string;
  startedAt: number;
  identity?: ProvenIdentity;
}

export const identityMachine = setup({
  types: {
    context: {} as IdentityContext,
    events: {} as { type: 'SUBMIT' },
    input: {} as FlowInput,
    output: {} as FlowOutput,
  },
  actors: {
    // Deps arrive through input, as with every real actor: here the provider is the whole proof.
    prove: fromPromise<ProvenIdentity, { deps: FlowDeps }>(async ({ input }) => (input.deps.provider as unknown as IdentityProvider).identity),
  },
}).createMachine({
  id: 'identity',
  initial: 'idle',
  context: ({ input }) => ({ deps: input.deps, callbackUrl: input.callbackUrl, providerId: input.providerId, startedAt: input.startedAt }),
  output: ({ event }) => (event as unknown as { output: FlowOutput }).output,
  states: {
    idle: { on: { SUBMIT: 'proving' } },
    proving: {
      invoke: {
        id: 'prove',
        src: 'prove',
        input: ({ context }) => ({ deps: context.deps }),
        onDone: { target: 'authenticated', actions: assign({ identity: ({ event }) => event.output }) },
      },
    },
    authenticated: {
      type: 'final',
      output: ({ context }) => {
        const { user, account, profile, passkey } = context.identity!;
        // The runtime stamps the provider on the account; a flow cannot name another's.
        return { outcome: 'authenticated' as const, user, account: { ...account, provider: context.providerId } as Account, ...(profile ? { profile } : {}), ...(passkey ? { passkey } : {}) };
      },
    },
  },
});

/** Entered by `POST callback/:id` (CSRF checked), like a credentials form. */
export const identityFlow = defineFlow({
  machine: identityMachine,
  version: 1,
  csrf: ['callback'],
  entry: (route, deps) => (route === 'callback' && deps.req.method === 'POST' ? { resume: false, event: { type: 'SUBMIT' } } : null),
});

/**
 * A custom provider (type `custom`) whose flow proves `identity`.
 *
 * @example
 * testAuth({ providers: [identityProvider({ user, account: { type: 'oauth', providerAccountId: '42' } })], adapter })
 */
export function identityProvider(identity: ProvenIdentity, extra: Partial<IdentityProvider> = {}): IdentityProvider {
  return { id: 'proof', name: 'Proof', type: 'custom', flow: identityFlow, identity, ...extra };
}
