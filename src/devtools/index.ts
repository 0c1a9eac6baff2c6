// authchart/devtools: drawing and walking flow machines (Mermaid diagrams, state and transition lists) for
// documentation, tests and tools. Never needed on the sign-in path; import it only where you draw.
export { toMermaid, toMermaidPath } from './mermaid.js';
export { machineStates, machineTransitions, awaitingStates, failureStates, statesVisited, transitionKey } from './graph.js';
export type { TraceEntry, TransitionRef } from '../flows/runtime/trace.js';
