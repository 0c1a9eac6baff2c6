// The package entries say what they are: the root exports what an application calls and the contract a custom
// flow is written against; internals stay inside, and the development tools have an entry of their own.
import { describe, expect, it } from 'vitest';
import * as root from '../../src/index.js';
import * as devtools from '../../src/devtools/index.js';
import * as adapters from '../../src/adapters/index.js';
import * as node from '../../src/node.js';
import * as flow from '../../src/flow.js';
import * as jwt from '../../src/jwt.js';

describe('authchart (root entry)', () => {
  it('exports the integrations, the session helpers and the errors', () => {
    for (const name of ['AuthInit', 'createAuthHandler', 'getSession', 'createAuth', 'getAccessToken', 'AuthError', 'InvalidCheck', 'Credentials', 'memoryFlowStore']) {
      expect(root, name).toHaveProperty(name);
    }
  });

  it('leaves the flow kit to authchart/flow and the JWT codec to authchart/jwt', () => {
    for (const name of ['defineFlow', 'finalOutput', 'AWAITING', 'baseContext', 'checkSignIn', 'testFlow', 'encode', 'decode', 'getToken']) {
      expect(root, name).not.toHaveProperty(name);
    }
    for (const name of ['defineFlow', 'finalOutput', 'AWAITING', 'baseContext', 'evidenceFrom', 'checkSignIn', 'testFlow', 'FLOW_STORE_LIMITS']) expect(flow, name).toHaveProperty(name);
    for (const name of ['encode', 'decode', 'getToken']) expect(jwt, name).toHaveProperty(name);
  });

  it('keeps internals inside', () => {
    for (const name of ['toAuthError', 'errorClassesByType', 'publicErrorType', 'clientSafeErrorTypes', 'ServerAuth', 'toWebRequest', 'writeWebResponse', 'resolveConfig', 'toMermaid', 'runFlow', 'settleMachine', 'signInMachine']) {
      expect(root, name).not.toHaveProperty(name);
    }
  });

  it('gives createAuth no door to the resolved configuration', () => {
    const auth = root.createAuth({ providers: [], secret: 'x'.repeat(32), trustHost: true });
    expect(Object.keys(auth).sort()).toEqual(['authorize', 'handle', 'readSession']);
  });
});

describe('authchart/node', () => {
  it('has the Node-only integration the root leaves out', () => {
    for (const name of ['ServerAuth', 'toWebRequest', 'writeWebResponse']) expect(node, name).toHaveProperty(name);
  });
});

describe('authchart/devtools and authchart/adapters', () => {
  it('draws machines from its own entry', () => {
    expect(typeof devtools.toMermaid).toBe('function');
    expect(devtools.toMermaid(devtools.signInMachine)).toContain('stateDiagram-v2');
  });

  it('gives flow authors the model paths and the coverage authchart tests its own flows with', () => {
    const paths = devtools.modelPaths(devtools.signInMachine, { events: () => [{ type: 'START' }], input: { deps: {}, callbackUrl: '/', identity: {} } });
    expect(paths.map((p) => p.events.map((e) => e.type))).toEqual([['START']]);
    const coverage = devtools.createCoverage(devtools.signInMachine);
    expect(coverage.report().states.total).toBe(devtools.machineStates(devtools.signInMachine).length);
    expect(() => coverage.assertComplete()).toThrow(/incomplete/);
  });

  it('gives adapter authors the contract, the wrapper and the unit of user creation', () => {
    for (const name of ['adapterMethods', 'wrapAdapter', 'assertAdapter', 'createUserWithAccount']) expect(adapters, name).toHaveProperty(name);
  });
});
