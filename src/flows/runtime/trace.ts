// Moved to observe/ (one observer per run: refs.ts, observer.ts); kept so the modules that import this path compile.
export { ROOT_STATE, AWAITING_TAG, FAILED_KEY, stateId, type TransitionRef, type TraceEntry } from './observe/refs.js';
export { createTraceRecorder, traceEntriesFromMicrostep } from './observe/observer.js';
