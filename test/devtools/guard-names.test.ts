// The runtime writes a guard down from the definition's data; the full name of a guard written as a function (a
// combinator, stateIn) is devtools' to give. A logged trace is named like the diagrams before coverage, the Mermaid
// path and the inspector read it, and a step that fitted several branches is counted as such.
import { describe, expect, it } from 'vitest';
import { assign, createActor, not, setup, type AnyStateMachine } from 'xstate';
import { createTraceRecorder } from '../../src/flows/runtime/observe/observer.js';
import type { TraceEntry } from '../../src/flows/runtime/observe/refs.js';
import { createCoverage } from '../../src/devtools/coverage.js';
import { machineTransitions, namedTrace, transitionKey } from '../../src/devtools/graph.js';
import { toMermaidPath } from '../../src/devtools/mermaid.js';

const machine = setup({
  types: { context: {} as { ok: boolean; checked: boolean }, input: {} as { ok: boolean } },
  guards: { isOk: ({ context }) => context.ok, unchecked: ({ context }) => !context.checked },
}).createMachine({
  id: 'named',
  initial: 'idle',
  context: ({ input }) => ({ ok: input.ok, checked: false }),
  states: {
    idle: { on: { GO: [{ guard: not('isOk'), target: 'refused' }, { target: 'checking' }] } },
    checking: { on: { NEXT: [{ guard: 'unchecked', target: 'done' }, { target: 'done', actions: assign({ checked: true }) }] } },
    refused: { type: 'final' },
    done: { type: 'final' },
  },
});

/** The runtime's own trace of one run (plain guard names), as a flow record carries it. */
function runtimeTrace(m: AnyStateMachine, ok: boolean, events: string[]): TraceEntry[] {
  const trace: TraceEntry[] = [];
  const record = createTraceRecorder();
  const actor = createActor(m, { input: { ok }, inspect: (ev) => trace.push(...record(ev)) });
  actor.start();
  for (const type of events) actor.send({ type });
  actor.stop();
  return trace;
}

describe('guard names', () => {
  it('the runtime names a function guard by what it can see, and marks its branch; devtools names it in full', () => {
    const trace = runtimeTrace(machine, false, ['GO']);
    expect(trace).toEqual([{ from: 'idle', event: 'GO', to: 'refused', guard: 'not', branch: 1, at: expect.any(Number) }]);
    expect(namedTrace(machine, trace)).toEqual([{ from: 'idle', event: 'GO', to: 'refused', guard: 'not(isOk)', at: trace[0].at }]);
    expect(machineTransitions(machine).map(transitionKey)).toContain(transitionKey(namedTrace(machine, trace)[0]));
  });

  it('leaves another machine’s steps alone', () => {
    const tail = { from: 'idle', event: 'GO', to: 'refused', guard: 'not', branch: 1, at: 1, machine: 'signin' };
    expect(namedTrace(machine, [tail])).toEqual([tail]);
  });

  it('counts a step that fitted several branches as covering each of them, and reports those as ambiguous', () => {
    const coverage = createCoverage(machine);
    coverage.record(runtimeTrace(machine, false, ['GO']));
    const through = runtimeTrace(machine, true, ['GO', 'NEXT']);
    expect(through.map(transitionKey)).toEqual(['idle --GO--> checking', 'checking --NEXT [unchecked]--> done or checking --NEXT--> done']);
    coverage.record(through);
    const report = coverage.report();
    expect(report.transitions.missing).toEqual([]);
    expect(report.ambiguous).toEqual(['checking --NEXT [unchecked]--> done', 'checking --NEXT--> done']);
    expect(coverage.format()).toContain('2 only through steps that fitted several branches');
  });

  it('numbers each branch a step fitted on the Mermaid path', () => {
    const diagram = toMermaidPath(machine, runtimeTrace(machine, true, ['GO', 'NEXT']));
    expect(diagram).toContain('(2) NEXT [unchecked]');
    expect(diagram).toMatch(/\(2\) NEXT\n|\(2\) NEXT$/m);
  });
});
