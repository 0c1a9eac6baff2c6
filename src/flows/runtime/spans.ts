// Moved to observe/spans.ts (one observer per run); kept so the modules and tests that import this path compile.
export * from './observe/spans.js';
