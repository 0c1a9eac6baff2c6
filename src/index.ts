// authchart's public surface: integrations, session helpers, configuration types and errors.
export { AuthInit, type AuthInitResult, type AuthenticatedRequest, type SignInOptions } from './http/integrations/fetch.js';
export { ServerAuth, toWebRequest, writeWebResponse } from './http/integrations/node.js';
export { createAuthHandler, createAuthMiddleware } from './http/integrations/h3.js';
export { getSession, requireSession, type AnyRequest } from './http/integrations/session-helpers.js';
export { createAuth, type AuthInstance, type ConfigInput } from './http/auth.js';
export { skipCSRFCheck } from './core/options.js';
export type {
  AuthConfig, AuthInitConfig, ServerAuthConfig, CallbacksOptions, DebugOptions, EventsOptions, JWTOptions, LoggerInstance, PagesOptions,
  SessionOptions, SessionStrategy, SignInCallbackParams, JWTCallbackParams, SessionCallbackParams,
} from './core/options.js';
export type * from './core/types.js';
export * from './core/errors.js';
export { Credentials, type CredentialsConfig } from './providers/credentials.js';
export { encode, decode, type JWTEncodeParams, type JWTDecodeParams } from './session/jwt.js';
export type { FlowDefinition, FlowOutcome, FlowResponse, FlowRoute } from './machines/contract.js';
export type { FlowServices } from './machines/services.js';
export { toMermaid, toMermaidPath } from './devtools/mermaid.js';
export type { TraceEntry, TransitionRef } from './devtools/graph.js';
export type { FlowRecord, FlowErrorEvidence, FlowStatus } from './flows/runtime/record.js';
export type { Adapter } from './core/adapter.js';
