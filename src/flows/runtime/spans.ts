// Moved to observe/spans.ts (one observer per run) and observe/flow-span.ts (the check that loads it); kept so the
// modules and tests that import this path compile. The runtime imports observe/flow-span.ts, never this barrel.
export * from './observe/spans.js';
export * from './observe/flow-span.js';
