// authchart/flow: the kit for writing a flow of your own — defineFlow (sign-in) and defineSignedInFlow (for a signed-in
// user) with their contracts' types, the context helpers, the flow store's types, and testFlow, the in-process driver
// whose traces feed createCoverage.
export {
  AWAITING, defineFlow, finalOutput,
  type FlowDefinition, type FlowDeps, type FlowEntry, type FlowFormField, type FlowFormPage, type FlowInput, type FlowOutput, type FlowResponse, type FlowRoute, type FailureMeta,
  type FlowSession,
} from './flows/runtime/contract.js';
export type { StageDefinition, StageInput, StageOutput, StagePurpose, StageStart } from './flows/runtime/stage.js';
// A signed-in flow's `level`, in the session gate's words.
export type { SessionLevel } from './session/gate.js';
export {
  defineSignedInFlow,
  type SignedInDeps, type SignedInFlowDefinition, type SignedInInput, type SignedInOutput, type SignedInRoute, type SignedInUserUpdate,
} from './flows/runtime/signed-in.js';
export { baseContext, doneOutput, errorIs, errorOf, errorTypeOf, evidenceFrom, recordFailure, type FailureEvidence, type FlowContextBase } from './flows/runtime/context.js';
export { FLOW_STORE_LIMITS, type FlowKeyValueStore } from './core/flow-store/scoped.js';
export { pageNonce } from './core/page-nonce.js';
export type { SignInInput, SignInOutput } from './flows/signin/machine.js';
export { checkSignIn, type SignInDecision } from './flows/signin/check.js';
export type { Identity } from './flows/signin/steps.js';
export type { FlowRecord, FlowErrorEvidence, FlowStatus } from './flows/runtime/record.js';
export type { TraceEntry, TransitionRef } from './flows/runtime/trace.js';
export { testFlow, type FlowDriver, type SignInAsOptions, type TestFlowResult, type TestRequestOptions } from './devtools/test-flow.js';
export type { SignedInFlowDriver, SignedInTestResult } from './devtools/test-signed-in-flow.js';
// Named by FlowOutput (a flow's `spend`): exported so an app or library with `declaration: true` can name it.
export type { TokenSpend } from './session/spend.js';
// FlowDeps and the form page name these: exported so that declarations can name them too.
export type { FlowText } from './flows/runtime/contract.js';
export type { InternalConfig } from './core/config.js';
