// authchart/devtools: drawing and walking flow machines (Mermaid diagrams, state and transition lists) and testing
// them (model paths, coverage) for documentation, tests and tools. Never needed on the sign-in path.
export { toMermaid, toMermaidPath } from './mermaid.js';
export { machineStates, machineTransitions, awaitingStates, failureStates, statesVisited, transitionKey } from './graph.js';
export type { TraceEntry, TransitionRef } from '../flows/runtime/trace.js';
export { modelPaths, type ModelPath, type ModelPathOptions } from './model-paths.js';
export { createCoverage, type CoverageCount, type CoverageReport, type FlowCoverage } from './coverage.js';
// The standard sign-in tail's machine, to draw it or walk its paths (the runtime runs it; a flow never imports it).
export { signInMachine, type SignInContext } from '../flows/signin/machine.js';
export { secondFactorMachine, type SecondFactorContext, type SecondFactorInput, type SecondFactorStart, type SecondFactorPurpose, type FactorMethod } from '../flows/second-factor/machine.js';
// The types the two machines' own types use, so a package that re-exports them can name them in its declarations.
export type { Resolution } from '../flows/signin/resolve.js';
export type { FactorState } from '../flows/second-factor/assess.js';
export type { PendingAssertion } from '../flows/second-factor/passkey.js';
export type { CodeCheck } from '../flows/second-factor/steps.js';
export type { FactorSummary } from '../flows/second-factor/account.js';
