// The OAuth 2 / OpenID Connect flow: discover -> build the authorization request -> await the
// callback (the only persisted state) -> validate -> exchange the code -> read the profile ->
// find the account's owner -> signIn callback -> link or create the user -> issue the session.
import { assign, emit, enqueueActions, fromPromise, setup } from 'xstate';
import type { Account, AdapterUser, Profile, TokenSet, User } from '../core/types.js';
import { mapProfile } from '../providers/oauth-authorization-url.js';
import { normalizeOAuthProvider, withCallbackUrl } from '../providers/oauth-normalize.js';
import type { InternalOAuthProvider, OAuthProviderConfig } from '../providers/oauth.js';
import { findAccountOwner, linkAccount, type LinkResult } from '../flows/signin/linking.js';
import type { FlowDefinition } from './contract.js';
import type { FlowContextBase } from './context.js';
import { placeholder, record, sharedGuards, signInTail, type Actor } from './shared.js';
import { discoverProvider, exchangeCode, prepareAuthorization, readProfile, validateCallback, withFormUser, type OAuthChecks, type TokenResult } from './oauth-steps.js';
import type { FlowServices } from './services.js';
import { checkSignIn, issueSession, type SignInDecision } from './steps.js';

/** How long a started OAuth sign-in may wait for the provider's callback. */
export const OAUTH_FLOW_TTL_MS = 15 * 60 * 1000;

export interface OAuthContext extends FlowContextBase, OAuthChecks {
  /** The sign-in request's authorization parameters; dropped before the flow pauses. */
  extraParams?: Record<string, string>;
  params?: Record<string, string>;
  tokens?: TokenResult;
  owner?: AdapterUser | null;
}

/**
 * START says whether the provider's endpoints must be discovered first; CALLBACK carries the time it
 * arrived, so that the expiry guard is a pure decision on the event and the context.
 */
export type OAuthEvent =
  | { type: 'START'; extraParams: Record<string, string>; discover: boolean }
  | { type: 'CALLBACK'; params: Record<string, string>; at: number };

/** What `prepare` hands back: the checks to keep, where to send the browser, and how it will come back. */
export type PreparedAuthorization = OAuthChecks & { url: string; formPost: boolean };

type Emitted =
  | { type: 'signIn'; user: User; account: Account | null; profile?: Profile; isNewUser?: boolean }
  | { type: 'createUser'; user: User }
  | { type: 'linkAccount'; user: User; account: Account; profile: User };

export const oauthMachine = setup({
  types: {
    context: {} as OAuthContext,
    events: {} as OAuthEvent,
    input: {} as { callbackUrl: string; startedAt: number },
    emitted: {} as Emitted,
  },
  actors: {
    discover: placeholder<void, void>('discover') as Actor<void, void>,
    prepare: placeholder('prepare') as Actor<PreparedAuthorization, { extraParams: Record<string, string> }>,
    validate: placeholder('validate') as Actor<void, { params: Record<string, string>; checks: OAuthChecks }>,
    exchange: placeholder('exchange') as Actor<TokenResult, { params: Record<string, string>; checks: OAuthChecks }>,
    readProfile: placeholder('readProfile') as Actor<{ user: User; account: Account; profile: Profile }, { tokens: TokenResult; formUser?: string }>,
    findOwner: placeholder('findOwner') as Actor<AdapterUser | null, { account: Account }>,
    checkSignIn: placeholder('checkSignIn') as Actor<SignInDecision, { user: User; account: Account; profile?: Profile }>,
    link: placeholder('link') as Actor<LinkResult, { user: User; account: Account; owner: AdapterUser | null }>,
    issueSession: placeholder('issueSession') as Actor<void, { user: User; account: Account | null; profile?: Profile; isNewUser?: boolean }>,
  },
  guards: {
    needsDiscovery: ({ event }) => event.type === 'START' && event.discover,
    flowExpired: ({ context, event }) => event.type === 'CALLBACK' && event.at - context.startedAt > OAUTH_FLOW_TTL_MS,
    ...sharedGuards,
  },
  actions: {
    recordError: assign(record.error),
    recordExpired: assign({
      failure: ({ context, event }) => ({
        message: 'The sign-in took too long; please start again.',
        expected: `< ${OAUTH_FLOW_TTL_MS} ms`,
        actual: `${(event as { at: number }).at - context.startedAt} ms`,
      }),
    }),
    recordRefusal: assign(record.refusal),
    recordRedirect: assign(record.redirect),
    emitLinkEvents: enqueueActions(({ enqueue, event, context }) => {
      const result = (event as unknown as { output: LinkResult }).output;
      if (result.created) enqueue(emit({ type: 'createUser', user: result.user }));
      if (result.linked) enqueue(emit({ type: 'linkAccount', user: result.user, account: context.account!, profile: context.user! }));
    }),
  },
}).createMachine({
  id: 'oauth',
  initial: 'idle',
  context: ({ input }) => ({ callbackUrl: input.callbackUrl, startedAt: input.startedAt }),
  states: {
    idle: {
      on: {
        START: [
          { guard: 'needsDiscovery', target: 'discovering', actions: assign({ extraParams: ({ event }) => event.extraParams }) },
          { target: 'preparing', actions: assign({ extraParams: ({ event }) => event.extraParams }) },
        ],
      },
    },
    discovering: {
      invoke: {
        id: 'discover',
        src: 'discover',
        onDone: 'preparing',
        onError: { target: 'failed.signInError', actions: 'recordError' },
      },
    },
    preparing: {
      invoke: {
        id: 'prepare',
        src: 'prepare',
        input: ({ context }) => ({ extraParams: context.extraParams ?? {} }),
        onDone: {
          target: 'awaitingCallback',
          actions: assign(({ event }) => ({
            codeVerifier: event.output.codeVerifier,
            state: event.output.state,
            nonce: event.output.nonce,
            extraParams: undefined,
            response: { kind: 'redirect' as const, url: event.output.url, crossSitePost: event.output.formPost },
          })),
        },
        onError: { target: 'failed.signInError', actions: 'recordError' },
      },
    },
    awaitingCallback: {
      tags: ['awaiting'],
      on: {
        CALLBACK: [
          { guard: 'flowExpired', target: 'failed.invalidCheck', actions: 'recordExpired' },
          { target: 'validating', actions: assign({ params: ({ event }) => event.params }) },
        ],
      },
    },
    validating: {
      invoke: {
        id: 'validate',
        src: 'validate',
        input: ({ context }) => ({ params: context.params ?? {}, checks: { codeVerifier: context.codeVerifier, state: context.state, nonce: context.nonce } }),
        onDone: 'exchanging',
        // A check of ours that failed (state, iss, tokens in the front channel) is an attack or a stale flow;
        // anything else here and in the token step is the provider's failure (error=, invalid_client, down).
        onError: [
          { guard: { type: 'errorIs', params: { type: 'InvalidCheck' } }, target: 'failed.invalidCheck', actions: 'recordError' },
          { target: 'failed.callbackError', actions: 'recordError' },
        ],
      },
    },
    exchanging: {
      invoke: {
        id: 'exchange',
        src: 'exchange',
        input: ({ context }) => ({ params: context.params ?? {}, checks: { codeVerifier: context.codeVerifier, state: context.state, nonce: context.nonce } }),
        onDone: { target: 'readingProfile', actions: assign({ tokens: ({ event }) => event.output }) },
        onError: [
          { guard: { type: 'errorIs', params: { type: 'InvalidCheck' } }, target: 'failed.invalidCheck', actions: 'recordError' },
          { target: 'failed.callbackError', actions: 'recordError' },
        ],
      },
    },
    readingProfile: {
      invoke: {
        id: 'readProfile',
        src: 'readProfile',
        input: ({ context }) => ({ tokens: context.tokens ?? { tokens: {} }, formUser: context.params?.user }),
        onDone: {
          target: 'findingOwner',
          actions: assign(({ event }) => ({ user: event.output.user, account: event.output.account, profile: event.output.profile, tokens: undefined })),
        },
        onError: [
          { guard: { type: 'errorIs', params: { type: 'OAuthProfileParseError' } }, target: 'failed.profileParse', actions: 'recordError' },
          { target: 'failed.callbackError', actions: 'recordError' },
        ],
      },
    },
    findingOwner: {
      invoke: {
        id: 'findOwner',
        src: 'findOwner',
        input: ({ context }) => ({ account: context.account! }),
        onDone: { target: 'checkingSignIn', actions: assign({ owner: ({ event }) => event.output }) },
        onError: { target: 'failed.callbackRoute', actions: 'recordError' },
      },
    },
    checkingSignIn: {
      invoke: {
        id: 'checkSignIn',
        src: 'checkSignIn',
        input: ({ context }) => ({ user: context.owner ?? context.user!, account: context.account!, profile: context.profile }),
        onDone: [
          { guard: 'signInAllowed', target: 'linking' },
          { guard: 'signInRedirected', target: 'redirected', actions: 'recordRedirect' },
          { target: 'failed.accessDenied', actions: 'recordRefusal' },
        ],
        onError: { target: 'failed.accessDenied', actions: 'recordError' },
      },
    },
    linking: {
      invoke: {
        id: 'link',
        src: 'link',
        input: ({ context }) => ({ user: context.user!, account: context.account!, owner: context.owner ?? null }),
        onDone: {
          target: 'issuingSession',
          actions: ['emitLinkEvents', assign(({ event }) => ({ user: event.output.user, isNewUser: event.output.isNewUser }))],
        },
        onError: [
          { guard: { type: 'errorIs', params: { type: 'OAuthAccountNotLinked' } }, target: 'failed.accountNotLinked', actions: 'recordError' },
          { target: 'failed.callbackRoute', actions: 'recordError' },
        ],
      },
    },
    ...signInTail(),
    failed: {
      initial: 'callbackRoute',
      states: {
        signInError: { type: 'final', meta: { error: 'OAuthSignInError' } },
        callbackError: { type: 'final', meta: { error: 'OAuthCallbackError' } },
        invalidCheck: { type: 'final', meta: { error: 'InvalidCheck' } },
        profileParse: { type: 'final', meta: { error: 'OAuthProfileParseError' } },
        accountNotLinked: { type: 'final', meta: { error: 'OAuthAccountNotLinked' } },
        accessDenied: { type: 'final', meta: { error: 'AccessDenied' } },
        callbackRoute: { type: 'final', meta: { error: 'CallbackRouteError' } },
      },
    },
  },
});

// One normalised provider per provider object, whatever the host: the callback URL is swapped in per request,
// so Host headers (any number of them, under `trustHost: true`) never add an entry.
const normalized = new WeakMap<object, InternalOAuthProvider>();

/** The provider with every default resolved, for this request's callback URL. */
export function oauthProviderFor(s: FlowServices): InternalOAuthProvider {
  const callbackUrl = `${s.req.authUrl}/callback/${s.provider.id}`;
  let p = normalized.get(s.provider);
  if (!p) {
    p = normalizeOAuthProvider(s.provider as unknown as OAuthProviderConfig, { env: s.req.config.env, redirectProxyUrl: s.req.config.redirectProxyUrl, callbackUrl });
    normalized.set(s.provider, p);
  }
  return withCallbackUrl(p, callbackUrl);
}

/** Parameters of the callback request: the query of a GET, the form of a `form_post` POST. */
function callbackParams(s: FlowServices): Record<string, string> {
  if (s.req.method !== 'POST') return { ...s.req.query };
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(s.req.body)) if (typeof v === 'string') out[k] = v;
  return out;
}

/** The OAuth/OIDC providers' flow: started by POST signin/:id, resumed by GET or POST callback/:id. */
export const oauthFlow: FlowDefinition<typeof oauthMachine> = {
  machine: oauthMachine,
  // 2: the context lost `providerId` and `needsDiscovery` (the cookie's own binding and START carry them).
  version: 2,
  input: (s) => ({ callbackUrl: s.callbackUrl, startedAt: Date.now() }),
  entry: (route, s) => {
    if (route === 'signin' && s.req.method === 'POST') {
      const { callbackUrl: _ignored, ...extraParams } = s.req.query;
      return { resume: false, event: { type: 'START', extraParams, discover: oauthProviderFor(s).needsDiscovery } };
    }
    if (route === 'callback') return { resume: true, event: { type: 'CALLBACK', params: callbackParams(s), at: Date.now() } };
    return null;
  },
  implement: (s) => {
    const provider = oauthProviderFor(s);
    return {
      actors: {
        discover: fromPromise<void, void>(() => discoverProvider(provider)),
        prepare: fromPromise<PreparedAuthorization, { extraParams: Record<string, string> }>(({ input }) => prepareAuthorization(provider, input.extraParams)),
        validate: fromPromise<void, { params: Record<string, string>; checks: OAuthChecks }>(({ input }) => validateCallback(provider, input.params, input.checks)),
        exchange: fromPromise<TokenResult, { params: Record<string, string>; checks: OAuthChecks }>(({ input }) => exchangeCode(provider, input.params, input.checks)),
        readProfile: fromPromise<{ user: User; account: Account; profile: Profile }, { tokens: TokenResult; formUser?: string }>(async ({ input }) => {
          const profile = withFormUser(provider, await readProfile(provider, input.tokens), input.formUser);
          return { ...(await mapProfile(provider, profile, input.tokens.tokens)), profile };
        }),
        findOwner: fromPromise<AdapterUser | null, { account: Account }>(({ input }) => findAccountOwner(s, input.account)),
        checkSignIn: fromPromise<SignInDecision, { user: User; account: Account; profile?: Profile }>(({ input }) => checkSignIn(s, input)),
        link: fromPromise<LinkResult, { user: User; account: Account; owner: AdapterUser | null }>(({ input }) =>
          linkAccount(s, { ...input, allowEmailLinking: provider.allowDangerousEmailAccountLinking }),
        ),
        issueSession: fromPromise<void, { user: User; account: Account | null; profile?: Profile; isNewUser?: boolean }>(({ input }) => issueSession(s, input)),
      },
    };
  },
};
