// Which machines run: a provider's flow (the one it brings, made with defineFlow, else the built-in flow of its type)
// and the stages after it. The built-in flows load on first use, so an app bundles and starts only the machines its
// providers need.
import { InvalidProvider } from '../core/errors.js';
import { lazy } from '../core/lazy.js';
import type { ResolvedProvider } from '../core/provider.js';
import type { InternalConfig } from '../core/config.js';
import { isDefinedFlow, type FlowDefinition } from './runtime/contract.js';
import type { SignInStages } from './runtime/flow.js';
import type { StageDefinition } from './runtime/stage.js';
import type { AccountFlowDefinition } from './runtime/account.js';
import type { DoorAnswer } from './runtime/door.js';
import type { SignedInFlowDefinition } from './runtime/signed-in.js';
import { isPasswordProvider } from '../core/provider.js';

type Loader = () => Promise<FlowDefinition>;

// Each loaded once (lazy): an import() of a module already loaded still costs a trip through the module loader
// on every request.
const oauth = lazy(() => import('./oauth/machine.js').then((m) => m.oauthFlow as unknown as FlowDefinition));
const builtIn: Readonly<Record<string, Loader>> = {
  credentials: lazy(() => import('./credentials/machine.js').then((m) => m.credentialsFlow as unknown as FlowDefinition)),
  oauth,
  oidc: oauth,
  email: lazy(() => import('./email/machine.js').then((m) => m.emailFlow as unknown as FlowDefinition)),
  webauthn: lazy(() => import('./webauthn/machine.js').then((m) => m.webauthnFlow as unknown as FlowDefinition)),
  password: lazy(() => import('./password/signin-machine.js').then((m) => m.passwordSignInFlow as unknown as FlowDefinition)),
  // An organization's SAML connection (sso/saml-provider.ts): providers made at runtime, never configured.
  saml: lazy(() => import('./saml/machine.js').then((m) => m.samlFlow as unknown as FlowDefinition)),
};

/**
 * The flow of a provider. A provider's own `flow` wins; it must come from `defineFlow`.
 *
 * @example
 * const flow = await flowFor(config.providersById.get('github')!)
 */
export async function flowFor(provider: ResolvedProvider): Promise<FlowDefinition> {
  if (provider.flow !== undefined) {
    if (!isDefinedFlow(provider.flow)) throw new InvalidProvider(`Provider "${provider.id}" brings a flow not made with defineFlow().`);
    return provider.flow;
  }
  // A Password provider is a credentials provider with its `password` settings (core/provider.ts isPasswordProvider),
  // told here by that field alone, so a credentials sign-in loads nothing more to find its flow.
  const load = builtIn[provider.type === 'credentials' && typeof provider.password === 'object' && provider.password !== null ? 'password' : provider.type];
  if (!load) throw new InvalidProvider(`Provider "${provider.id}" has type "${provider.type}", which has no built-in flow; give it a \`flow\`.`);
  return load();
}

// The stages every proven identity goes through, in order: the standard tail, then (with second factors) the
// second-factor machine. Loaded on first use like the flows.
const tail = lazy(() => import('./signin/machine.js').then((m) => m.signInFlow as unknown as FlowDefinition));
const secondFactor = lazy(() => import('./second-factor/machine.js').then((m) => m.secondFactorStage as unknown as StageDefinition));

/**
 * The machines the runtime runs after a provider's flow proved an identity: the standard sign-in tail, then the
 * second-factor machine when the configuration has second factors.
 *
 * @example
 * const result = await runFlow(flow, deps, entry, paused, { stages: await signInStages(config) })
 */
export async function signInStages(config: Pick<InternalConfig, 'secondFactor'>): Promise<SignInStages> {
  const [t, a] = await Promise.all([tail(), config.secondFactor ? secondFactor() : undefined]);
  return a ? { tail: t, secondFactor: a } : { tail: t };
}

/** The second-factor stage, which the factor routes and step-up start for a signed-in user. */
export function secondFactorStage(): Promise<StageDefinition> {
  return secondFactor();
}

const link = lazy(() => import('./account/link-machine.js').then((m) => m.linkFlow as unknown as FlowDefinition));

/**
 * The stages of a link (`POST {basePath}/link/:provider`): the link machine in place of the sign-in tail, for the
 * user the link was started for, and no second-factor stage (the link route asked for a recent sign-in already).
 *
 * @example
 * const result = await runFlow(flow, deps, entry, paused, { stages: await linkStages(userId) })
 */
export async function linkStages(userId: string): Promise<SignInStages> {
  return { tail: await link(), tailInput: { userId } };
}

// The jobs a request may run for a provider, and the account data the HTTP layer reads: loaded on first use.
const tokenRefresh = lazy(() => import('./tokens/refresh-job.js').then((m) => m.tokenRefreshJob));
const logoutJobs = lazy(() => import('./logout/jobs.js'));

/** The jobs the door runs for a provider (see runtime/job.ts). */
export const jobs = {
  tokenRefresh,
  backchannelLogout: () => logoutJobs().then((m) => m.backchannelLogoutJob),
  rpLogout: () => logoutJobs().then((m) => m.rpLogoutJob),
};

/** A signed-in user's ways to sign in (linked accounts, passkeys, address) and unlinking one: the account page's data. */
export const accountMethods = lazy(() => import('./account/methods.js'));

/** A signed-in user's passkeys as the account page manages them: listed, renamed, removed. */
export const accountPasskeys = lazy(() => import('./account/passkeys.js'));
/** The change of e-mail address's way back (the revert link's identifier and token hash), for its route. */
export const changeEmailSteps = lazy(() => import('./password/change-email-steps.js'));

/** The redirect proxy's side of an OAuth callback (it runs no flow: it opens the sealed state and forwards). */
export const redirectProxy = lazy(() => import('./oauth/redirect-proxy.js'));

/** A signed-in user's second factors, as the factors page lists them (never their secrets). */
export const factorAccount = lazy(() => import('./second-factor/account.js'));

export type { TokenRefreshOptions } from './tokens/steps.js';
export type { TokenRefreshOutput } from './tokens/machine.js';
export type { TokenRefreshArgs } from './tokens/refresh-job.js';
export type { FactorSummary } from './second-factor/account.js';
export type { PasskeyInfo } from './account/passkeys.js';
export type { RpLogoutArgs } from './logout/jobs.js';

// The account flows (an anonymous visitor's flows that end in no provider's callback: sign-up), by the id their
// routes carry (`{basePath}/{id}/:provider`), each the flow of a provider that has it, or undefined. Loaded on first
// use, and only for a Password provider: an app without one never loads them. http/app.ts routes these ids.
type AccountLoader = (provider: ResolvedProvider) => Promise<AccountFlowDefinition | undefined>;
const signUp = lazy(() => import('./password/signup-machine.js').then((m) => m.signUpFlow as unknown as AccountFlowDefinition));
const recovery = lazy(() => import('./password/recovery-machine.js').then((m) => m.recoveryFlow as unknown as AccountFlowDefinition));
const accountFlows: Readonly<Record<string, AccountLoader>> = {
  // A Password provider's, unless it turned sign-up off.
  signup: async (provider) => (isPasswordWith(provider, 'signUp') ? signUp() : undefined),
  // Password recovery ("forgot your password?"): every Password provider has it.
  recover: async (provider) => (provider.type === 'credentials' && typeof provider.password === 'object' && provider.password !== null ? recovery() : undefined),
};

/** Whether `provider` is a Password provider whose settings turn `flow` on (told by its field, as flowFor does). */
function isPasswordWith(provider: ResolvedProvider, flow: string): boolean {
  const settings = provider.type === 'credentials' ? (provider.password as Record<string, unknown> | null | undefined) : undefined;
  return typeof settings === 'object' && settings !== null && settings[flow] !== false && settings[flow] !== undefined;
}

/**
 * The account flow `id` of `provider`, or undefined when it has none (not a Password provider, or the flow is off).
 *
 * @example
 * const flow = await accountFlow('signup', config.providersById.get('password')!)
 */
export async function accountFlow(id: string, provider: ResolvedProvider): Promise<AccountFlowDefinition | undefined> {
  const load = Object.hasOwn(accountFlows, id) ? accountFlows[id] : undefined;
  return load ? load(provider) : undefined;
}

/** The ids of the account flows the registry knows (the routes http/app.ts adds for a Password provider). */
export const accountFlowIds: readonly string[] = Object.keys(accountFlows);

// The built-in signed-in flows, registered by the providers that bring them: a Password provider brings the change
// of password. Loaded on first use; one definition per configuration (its level comes from the provider's settings).
const changePassword = lazy(() => import('./password/change-machine.js'));
const changeEmail = lazy(() => import('./password/change-email-machine.js'));
const builtInSignedIn = new WeakMap<object, SignedInFlowDefinition>();

/**
 * The signed-in flow `id` names for this configuration: the app's own (`flows`), else a built-in one its providers
 * bring (`change-password` with a Password provider), else undefined.
 *
 * @example
 * const flow = await signedInFlowFor(req.config, 'change-password')
 */
export async function signedInFlowFor(config: InternalConfig, id: string): Promise<SignedInFlowDefinition | undefined> {
  const own = config.flowsById.get(id) as SignedInFlowDefinition | undefined;
  if (own) return own;
  const password = [...config.providersById.values()].find(isPasswordProvider);
  if (id === 'change-email') return changeEmailFor(config, password);
  if (id !== 'change-password' || !password) return undefined;
  const settings = password.password as object;
  let flow = builtInSignedIn.get(settings);
  if (!flow) {
    const m = await changePassword();
    flow = m.changePasswordFlow(m.passwordSettingsOf(config)) as unknown as SignedInFlowDefinition;
    builtInSignedIn.set(settings, flow);
  }
  return flow;
}

/**
 * The built-in change of e-mail address: offered with an adapter and a way to mail the new address (a Password
 * provider, or an e-mail provider); its recent sign-in is the Password provider's `change.maxAge` (default 300 s).
 */
async function changeEmailFor(config: InternalConfig, password: object | undefined): Promise<SignedInFlowDefinition | undefined> {
  const mails = [...config.providersById.values()].some((p) => p.type === 'email');
  if (!config.adapter || !mails) return undefined;
  let flow = builtInSignedIn.get(config);
  if (!flow) {
    const maxAge = (password as { password?: { change?: { maxAge?: number } } } | undefined)?.password?.change?.maxAge ?? 300;
    flow = (await changeEmail()).changeEmailFlow(maxAge) as unknown as SignedInFlowDefinition;
    builtInSignedIn.set(config, flow);
  }
  return flow;
}

const door = lazy(() => import('./runtime/door.js'));
const catalog = { flowFor, signInStages, linkStages, secondFactorStage, accountFlow, signedInFlow: signedInFlowFor };

/**
 * The runtime's one door (runtime/door.ts) with the machines this registry names: what the HTTP layer calls to run
 * any machine for a request. Loads the runtime on the first call.
 *
 * @example
 * const answer = await step(req, { kind: 'signIn', provider, route: 'callback', callbackUrl })
 */
export async function step(...args: StepArgs): Promise<DoorAnswer> {
  return (await door()).step(catalog, ...args);
}

type StepArgs = Parameters<typeof import('./runtime/door.js').step> extends [unknown, ...infer Rest] ? Rest : never;
export type { Door, DoorAnswer } from './runtime/door.js';
export type { AccountFlowDefinition, AccountRoute } from './runtime/account.js';

/** A SAML connection's service provider metadata (`GET {basePath}/sso/saml/:id/metadata`): loaded on first use. */
export const samlMetadata = lazy(() => import('./saml/metadata.js').then((m) => m.samlMetadata));

/** Invitations to an organization (sending, listing, revoking, reading a link): loaded with the first invitation route. */
export const invitations = lazy(() => import('./organizations/invitations.js'));

/** The invitation flow (`{basePath}/invitations/:token`), a built-in signed-in flow run through the door. */
export const invitationFlow = lazy(() => import('./organizations/invitation-machine.js').then((m) => m.invitationFlow as unknown as SignedInFlowDefinition));
