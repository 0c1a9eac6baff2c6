// authchart's public surface: what an application calls (integrations, session helpers), what it configures
// (options, callbacks, events), what it catches (errors), and the contract a custom sign-in flow is written against.
export {
  AuthInit, type AuthInitResult, type AuthenticatedRequest, type AuthFunction, type AuthHandler, type NextFetch, type PageContext, type SignInOptions,
  type SignOutOptions, type SessionUpdate, type AuthorizationParams,
} from './http/integrations/fetch.js';
export { createAuthHandler, createAuthMiddleware } from './http/integrations/h3.js';
export { getSession, requireSession, type AnyRequest } from './http/integrations/session-helpers.js';
export { authOnError } from './http/outage.js';
export { getAccessToken, type GetAccessTokenOptions, type TokenRefreshOptions } from './http/integrations/access-token.js';
export { encryptProviderTokens, type EncryptProviderTokensOptions } from './flows/tokens/sealed-tokens.js';
export { redisTokenRefresh, type RedisTokenRefreshOptions } from './flows/tokens/redis-refresh.js';
export {
  getUserSession, requireUserSession, clearUserSession, updateUserSession, type AnyH3Event, type RequireUserSessionOptions,
} from './http/integrations/h3-helpers.js';
export { requireRecentSignIn, checkRecentSignIn, type RecentSignIn, type RecentSignInOptions } from './http/integrations/step-up.js';
export {
  listUserSessions, revokeUserSession, revokeOtherUserSessions, revokeAllUserSessions, type SessionControlOptions,
} from './http/integrations/session-control.js';
export { createAuth, type AuthInstance, type ConfigInput } from './http/auth.js';
export { skipCSRFCheck } from './core/options.js';
export type {
  AuthConfig, AuthInitConfig, ServerAuthConfig, CallbacksOptions, DebugOptions, EventsOptions, JWTOptions, LoggerInstance, PagesOptions,
  SessionOptions, SessionStrategy, SessionsValidAfterStore, ProviderTokensInSession, SignInCallbackParams, JWTCallbackParams, SessionCallbackParams,
} from './core/options.js';
export type * from './core/types.js';
export type { CommonProviderOptions, AnyProvider } from './core/provider.js';
export type {
  BuiltInProviderType, RedirectableProviderType, OAuthProviderType, OAuthProviderId, CredentialsProviderId, EmailProviderId, WebAuthnProviderId, ProviderId,
} from './providers/provider-ids.js';
export type { Theme } from './core/theme.js';
// The language of pages and mails (`locale`, `messages`, `defaultLocale`).
export type { Messages, MessageId } from './core/messages/en.js';
export type { Translator, MessageValues } from './core/messages/translator.js';
export {
  AuthError, SignInError, CredentialsSignin, OAuthAccountNotLinked, OAuthCallbackError, AccountNotLinked, MissingCSRF,
  OAuthSignInError, EmailSignInError, AccessDenied, Verification, WebAuthnVerificationError, SecondFactorFailed, SecondFactorExpired, AdapterError,
  CallbackRouteError, ErrorPageLoop, EventError, InvalidCallbackUrl, InvalidEndpoints, InvalidCheck, JWTSessionError,
  MissingAdapter, MissingAdapterMethods, MissingAuthorize, MissingSecret,
  OAuthProfileParseError, SessionTokenError, SignOutError, UnknownAction, UnsupportedStrategy, InvalidProvider,
  DuplicateProviderId, UntrustedHost, DuplicateConditionalUI, MissingWebAuthnAutocomplete, ExperimentalFeatureNotEnabled,
  InvalidRequest, InvalidPassword, RateLimited, ServiceUnavailable, MissingRequestContext, RefreshTokenError, type ErrorCause, type ErrorKind,
  type PasswordProblem, OrganizationForbidden, LastOwner, SessionRequired, InvalidWebhookEndpoint,
  SsoAddressRefused, SsoDomainRefused, SsoDomainUnverified, SsoNotFound, SamlResponseRefused,
} from './core/errors.js';
export {
  defaultThrottleRules, type ThrottleOptions, type ThrottleRule, type ThrottleRules, type ThrottleLimit, type StoreDownPolicy,
} from './core/throttle/options.js';
export { memoryThrottleStore, redisThrottleStore, type ThrottleStore, type ThrottleCounter, type RedisThrottleStoreOptions } from './core/throttle/store.js';
export { redisSessionsValidAfter, type RedisSessionsValidAfterOptions } from './session/valid-after-redis.js';
// Where flows keep state across requests and instances (`flowStore` option, `deps.store`).
export {
  memoryFlowStore, redisFlowStore, adapterFlowStore, type FlowStore, type FlowStoreEntry, type MemoryFlowStoreOptions, type RedisFlowStoreOptions,
  type FlowStoreAdapterMethods,
} from './core/flow-store/store.js';
// Session control on a request context (a route of your own, a custom flow's `deps.req`): the user's devices.
export { listSessions, revokeSession, revokeOtherSessions, revokeAllSessions, type SessionInfo } from './session/session-control-entry.js';
export { Credentials, type CredentialsConfig } from './providers/credentials.js';
export {
  Password, argon2id, OWASP_ARGON2ID, hashNewPassword, breachedRange, MIN_PASSWORD_LENGTH, MAX_PASSWORD_LENGTH, type PasswordConfig, type PasswordOptions,
  type PasswordSettings, type PasswordHasher, type Argon2idParameters, type NewPasswordOptions, type BreachedLookup, type BreachedRangeOptions, type VerifyImported,
  type PasswordMail, type PasswordMailOptions,
  type SignUpMail, type SignUpMailContext, type SignUpOptions, type SignUpSettings,
} from './providers/password/index.js';
export type { Adapter } from './core/adapter.js';
export type { SecondFactorOptions, AdapterFactor, FactorAdapterMethods, FactorKind } from './core/factors.js';
// Organizations: members with roles as permission sets, the active organization checked on every request.
export type { OrganizationsOptions, AdapterOrganization, AdapterMembership, OrganizationAdapterMethods, LastOwnerRefusal } from './core/organizations.js';
export type { OrganizationEventMessage } from './core/options.js';
// Signed webhooks from the activity log (an outbox in the adapter's database, delivered at least once).
export { webhookSink, webhookPayload } from './activity/webhook-sink.js';
export { deliverWebhooks, startWebhookDelivery, type WebhookDeliverer, type WebhookDeliveryReport } from './activity/webhook-delivery.js';
export type { WebhookEndpoint, WebhooksOptions, WebhooksConfig } from './activity/webhook-options.js';
export type { WebhookAdapterMethods, WebhookDelivery, WebhookEndpointHealth, WebhookEnqueue, WebhookFailureOutcome } from './core/webhook-outbox.js';
export type { WebhookEndpointDisabledMessage } from './core/options.js';
export { requireOrganization, type OrganizationAccess } from './http/integrations/organization-helpers.js';
export type { OrganizationNeed } from './organizations/gate.js';
export type { MemberAccess } from './organizations/members.js';
// Enterprise SSO (issue 49): the stored shapes, the option, and the shared end of an SSO sign-in.
export type { SsoConnection, OidcConnectionSettings, SamlConnectionSettings, OrganizationDomain, SsoAdapterMethods } from './sso/types.js';
export type { SsoOptions, ResolveTxt } from './sso/options.js';
// Invitations to an organization (issue 47): the stored shape, the adapter methods, the mail, the event message.
export type { AdapterInvitation, InvitationAdapterMethods, InvitationRefusal, InvitationStatus, InvitationMail, InvitationsOptions } from './core/invitations.js';
export type { InvitationEventMessage } from './core/options.js';
// The security activity log (docs/activity-and-webhooks.md).
export type { ActivityKind, ActivityRecord, ActivityTransition, ActivityQuery, ActivityPage, ActivityAdapterMethods, ActivitySink } from './activity/types.js';
export type { ActivityOptions } from './core/activity-options.js';
export { listActivity, type ListActivityQuery } from './http/integrations/activity-helpers.js';
export { activityStream, type ActivityStream, type ActivityStreamOptions } from './activity/stream.js';
export { activityNotices, type ActivityNoticeOptions, type NoticeMail } from './activity/notices.js';
export { memoryActivity } from './activity/memory.js';

export type { RequestContext } from './core/request-context.js';
// What `logger.debug` hands an app for each flow (also in `authchart/flow`).
export type { FlowRecord, FlowErrorEvidence, FlowStatus } from './flows/runtime/record.js';
export type { TraceEntry, TransitionRef } from './flows/runtime/trace.js';
// Types the exports above use, exported so that an app or library with `declaration: true` can name them.
export type { H3V1Event } from './http/integrations/h3-v1.js';
export type { H3EventLike } from './http/integrations/session-helpers.js';
export type { ServerActions } from './http/integrations/server-actions.js';
// Writing a flow of your own: `authchart/flow` (defineFlow, the context helpers, testFlow). The session JWT codec and
// getToken: `authchart/jwt`.
