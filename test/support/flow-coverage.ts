// The flow-coverage collector, now public in authchart/devtools (src/devtools/coverage.ts); kept here so the
// tests that import it from test/support go on working.
export { createCoverage, type CoverageCount, type CoverageReport, type FlowCoverage } from '../../src/devtools/coverage.js';
