// Model paths and the coverage collector (authchart/devtools), end to end on the fixture: paths from the graph,
// driven through a real actor whose inspection trace is recorded the way the runtime records it.
import { describe, expect, it } from 'vitest';
import { createActor, fromPromise, type AnyEventObject } from 'xstate';
import { traceEntriesFromMicrostep, type TraceEntry } from '../../src/devtools/graph.js';
import { createCoverage } from '../../src/devtools/coverage.js';
import { modelPaths, type ModelPath } from '../../src/devtools/model-paths.js';
import { callbackFlow, fixtureEvents } from './fixtures/callback-flow.js';

// The invoke never settles by itself: its done/error events come from the path, as in the model.
const drivable = callbackFlow.provide({ actors: { authorize: fromPromise<{ userId: string | null }, { code: string }>(() => new Promise(() => {})) } });

function drive(path: ModelPath): { trace: TraceEntry[]; value: unknown; status: string } {
  const trace: TraceEntry[] = [];
  const actor = createActor(drivable, { inspect: (ev) => trace.push(...traceEntriesFromMicrostep(ev)) });
  actor.start();
  for (const event of path.events) actor.send(event as never);
  const snapshot = actor.getSnapshot();
  actor.stop();
  return { trace, value: snapshot.value, status: snapshot.status };
}

const paths = modelPaths(callbackFlow, { events: () => fixtureEvents });

describe('modelPaths', () => {
  it('gives unique descriptions and no path that is a prefix of another', () => {
    expect(paths.length).toBeGreaterThan(0);
    expect(new Set(paths.map((p) => p.description)).size).toBe(paths.length);
    const sequences = paths.map((p) => p.events.map((e) => JSON.stringify(e)));
    for (const [i, a] of sequences.entries()) {
      for (const [j, b] of sequences.entries()) {
        if (i !== j) expect(b.length >= a.length && a.every((e, k) => b[k] === e), `${i} is a prefix of ${j}`).toBe(false);
      }
    }
  });

  it('spells invoke results as xstate names them and ends where it says', () => {
    const done = paths.find((p) => p.finalState === 'done');
    expect(done?.events.map((e) => e.type)).toEqual(['START', 'CALLBACK', 'xstate.done.actor.authorize']);
    expect(done?.description).toBe('reaches done: START → CALLBACK → done: authorize');
    for (const path of paths) {
      const { value } = drive(path);
      const leaf = typeof value === 'string' ? value : Object.entries(value as Record<string, string>).map(([k, v]) => `${k}.${v}`)[0];
      expect(leaf, path.description).toBe(path.finalState);
    }
  });

  it('drives only the events it is given, and only where they are accepted', () => {
    const onlyStart = modelPaths(callbackFlow, { events: () => [{ type: 'START', provider: 'github' }] });
    expect(onlyStart.map((p) => [p.finalState, p.events.length])).toEqual([['awaitingCallback', 1]]);
  });

  it('offers simple paths too', () => {
    const simple = modelPaths(callbackFlow, { events: () => fixtureEvents, strategy: 'simple' });
    expect(new Set(simple.map((p) => p.finalState))).toEqual(new Set(paths.map((p) => p.finalState)));
  });
});

describe('createCoverage', () => {
  it('reaches 100 % of states and transitions when every model path is driven', () => {
    const coverage = createCoverage(callbackFlow);
    for (const path of paths) coverage.record(drive(path).trace);
    const report = coverage.report();
    expect(report.states).toEqual({ covered: 9, total: 9, missing: [] });
    expect(report.transitions).toEqual({ covered: 9, total: 9, missing: [] });
    expect(() => coverage.assertComplete()).not.toThrow();
    expect(coverage.format()).toMatch(/^callbackFlow\s+states 9\/9 100\.0 %\s+transitions 9\/9 100\.0 %$/);
  });

  it('names what is missing when a path is dropped', () => {
    const coverage = createCoverage(callbackFlow);
    for (const path of paths.filter((p) => !p.events.some((e: AnyEventObject) => e.type === 'CANCEL'))) {
      coverage.record(drive(path).trace);
    }
    const report = coverage.report();
    expect(report.states.missing).toEqual(['failed.cancelled']);
    expect(report.transitions.missing).toEqual(['awaitingCallback --CANCEL--> failed.cancelled']);
    expect(() => coverage.assertComplete()).toThrow(
      /States never visited \(1\):\n {2}failed\.cancelled\nTransitions never taken \(1\):\n {2}awaitingCallback --CANCEL--> failed\.cancelled/,
    );
    expect(coverage.format()).toContain('transitions 8/9 88.9 %');
  });

  it('counts the initial state and compound parents as visited', () => {
    const coverage = createCoverage(callbackFlow);
    coverage.record([]);
    expect(coverage.report().states.covered).toBe(1);
    coverage.record([{ from: 'idle', event: 'START', to: 'failed.configuration', at: 0 }]);
    expect(coverage.report().states.missing).not.toContain('failed');
  });
});
