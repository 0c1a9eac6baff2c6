// defineFlow refuses, at definition time, a failure state whose `meta.error` names no error type: at run time it
// would silently become CallbackRouteError. The message lists the states at fault and the valid names.
import { baseContext, defineFlow, type FlowContextBase, type FlowInput } from 'authchart/flow';
import { describe, expect, it } from 'vitest';
import { setup } from 'xstate';
import { InvalidProvider } from '../../../src/core/errors.js';

const machineFailingWith = (error: unknown, nested = false) =>
  setup({ types: { context: {} as FlowContextBase, input: {} as FlowInput } }).createMachine({
    id: 'named',
    initial: 'idle',
    context: ({ input }) => baseContext(input),
    states: {
      idle: { on: { GO: 'checking' } },
      checking: nested
        ? { initial: 'inner', states: { inner: { on: { NO: 'refused' } }, refused: { type: 'final', meta: { error } } } }
        : { on: { NO: 'refused' } },
      refused: { type: 'final', meta: { error: 'AccessDenied' } },
    },
  });

const define = (error: unknown, nested = false) => () => defineFlow({ machine: machineFailingWith(error, nested), version: 1, entry: () => null });

describe('meta.error names an error type', () => {
  it('takes every known name', () => {
    expect(define('CredentialsSignin', true)).not.toThrow();
    expect(define('AccessDenied', true)).not.toThrow();
  });

  it.each<[string, unknown]>([
    ['a misspelt name', 'CredentialSignin'],
    ['a name of no error', 'PhoneCodeWrong'],
    ['a prototype key', 'toString'],
    ['a number', 42],
    ['an empty name', ''],
  ])('refuses %s, naming the state and listing the valid names', (_case, error) => {
    let thrown: unknown;
    try {
      define(error, true)();
    } catch (e) {
      thrown = e;
    }
    expect(thrown).toBeInstanceOf(InvalidProvider);
    const message = (thrown as Error).message;
    expect(message).toContain(`Flow "named"`);
    expect(message).toContain(`checking.refused: ${String(error)}`);
    expect(message).toMatch(/Valid names: .*AccessDenied.*CallbackRouteError.*CredentialsSignin.*Verification/);
  });

  it('checks the root too, and reports every wrong state at once', () => {
    const machine = setup({ types: { context: {} as FlowContextBase, input: {} as FlowInput } }).createMachine({
      id: 'many',
      initial: 'a',
      context: ({ input }) => baseContext(input),
      states: { a: { meta: { error: 'Nope' }, on: { X: 'b' } }, b: { type: 'final', meta: { error: 'AlsoNope' } } },
    });
    expect(() => defineFlow({ machine, version: 1, entry: () => null })).toThrow(/a: Nope; b: AlsoNope/);
  });
});
