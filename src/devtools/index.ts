// authchart/devtools: drawing and walking flow machines (Mermaid diagrams, state and transition lists) and testing
// them (model paths, coverage) for documentation, tests and tools. Never needed on the sign-in path.
export { toMermaid, toMermaidPath } from './mermaid.js';
export { machineStates, machineTransitions, awaitingStates, failureStates, statesVisited, transitionKey } from './graph.js';
export type { TraceEntry, TransitionRef } from '../flows/runtime/trace.js';
export { modelPaths, type ModelPath, type ModelPathOptions } from './model-paths.js';
export { createCoverage, type CoverageCount, type CoverageReport, type FlowCoverage } from './coverage.js';
// The standard sign-in tail's machine, to draw it or walk its paths (the runtime runs it; a flow never imports it).
export { signInMachine } from '../flows/signin/machine.js';
export { secondFactorMachine } from '../flows/second-factor/machine.js';
