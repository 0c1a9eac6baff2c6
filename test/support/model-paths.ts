// The model-path generator, now public in authchart/devtools (src/devtools/model-paths.ts); kept here so the
// tests that import it from test/support go on working.
export { modelPaths, type ModelPath, type ModelPathOptions } from '../../src/devtools/model-paths.js';
