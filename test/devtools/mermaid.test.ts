// The Mermaid output: the whole fixture diagram as a golden, the awkward cases one by one, and path highlighting.
import { describe, expect, it } from 'vitest';
import { createMachine, fromPromise, setup } from 'xstate';
import type { TraceEntry } from '../../src/devtools/graph.js';
import { toMermaid, toMermaidPath } from '../../src/devtools/mermaid.js';
import { callbackFlow } from './fixtures/callback-flow.js';

describe('toMermaid', () => {
  it('draws the fixture (checked visually once with mermaid 11 in Chromium)', () => {
    expect(toMermaid(callbackFlow)).toBe(
      [
        'stateDiagram-v2',
        '  [*] --> idle',
        '  idle',
        '  awaitingCallback',
        '  note right of awaitingCallback : dashed border = awaiting, the flow is persisted here and waits for the browser',
        '  state "authorizing" as authorizing',
        '  authorizing : invoke authorize',
        '  done',
        '  state failed {',
        '    [*] --> callbackError',
        '    configuration',
        '    accessDenied',
        '    callbackError',
        '    cancelled',
        '    configuration --> [*]',
        '    accessDenied --> [*]',
        '    callbackError --> [*]',
        '    cancelled --> [*]',
        '  }',
        '  idle --> awaitingCallback : START [knownProvider]',
        '  idle --> configuration : START',
        '  awaitingCallback --> authorizing : CALLBACK [not(hasError)]',
        '  awaitingCallback --> accessDenied : CALLBACK',
        '  awaitingCallback --> awaitingCallback : PING [inline-1]',
        '  awaitingCallback --> cancelled : CANCEL',
        '  authorizing --> done : done: authorize [userFound]',
        '  authorizing --> accessDenied : done: authorize',
        '  authorizing --> callbackError : error: authorize',
        '  done --> [*]',
        '  classDef failure fill:#fdecea,stroke:#c62828,color:#7f1d1d',
        '  classDef awaiting stroke-dasharray:6 4,stroke-width:2px',
        '  class configuration,accessDenied,callbackError,cancelled failure',
        '  class awaitingCallback awaiting',
        '',
      ].join('\n'),
    );
  });

  it('is deterministic', () => {
    expect(toMermaid(callbackFlow)).toBe(toMermaid(callbackFlow));
  });

  it('keeps ids unique and valid, and escapes what Mermaid would misread', () => {
    const machine = setup({ actors: { fetchThing: fromPromise(async () => 1) } }).createMachine({
      id: 'tricky',
      initial: 'a',
      on: { RESET: '.a' },
      states: {
        a: { initial: 'idle', states: { idle: { on: { NEXT: 'busy' } }, busy: { invoke: { src: 'fetchThing', onDone: 'idle' } } }, on: { GO: 'b' } },
        b: { initial: 'idle', states: { idle: { after: { 500: 'end' } }, end: { type: 'final' } }, onDone: 'par' },
        par: {
          type: 'parallel',
          states: { left: { initial: 'l1', states: { l1: {} } }, right: { initial: 'r1', states: { r1: {} } } },
          on: { 'semi;colon': 'my-state' },
        },
        'my-state': { on: { FAIL: 'failed' } },
        failed: { type: 'final' },
      },
    });
    const text = toMermaid(machine);
    expect(text).toContain('  state "any state" as anyState\n');
    expect(text).toContain('  anyState --> a : RESET\n');
    expect(text).toContain('    state "idle" as a_idle\n');
    expect(text).toContain('    state "idle" as b_idle\n');
    expect(text).toContain('    state "end" as s_end\n'); // `end` is a Mermaid keyword
    expect(text).toContain('    busy : invoke fetchThing\n'); // no explicit id: named by src
    expect(text).toContain('    busy --> a_idle : done: fetchThing\n');
    expect(text).toContain('    b_idle --> s_end : after 500ms\n');
    expect(text).toContain('  b --> par : onDone\n');
    expect(text).toContain('    --\n');
    expect(text).toContain('  state "my-state" as my_state\n');
    expect(text).toContain('  par --> my_state : semi#59;colon\n');
    expect(text).toContain('  class failed failure\n');
    expect(text).not.toContain('classDef awaiting');
  });

  it('draws a plain machine without classes', () => {
    const machine = createMachine({ id: 'plain', initial: 'on', states: { on: { on: { TOGGLE: 'off' } }, off: {} } });
    expect(toMermaid(machine)).toBe('stateDiagram-v2\n  [*] --> on\n  on\n  off\n  on --> off : TOGGLE\n');
  });
});

describe('toMermaidPath', () => {
  const trace: TraceEntry[] = [
    { from: 'idle', event: 'START', to: 'awaitingCallback', guard: 'knownProvider', at: 1 },
    { from: 'awaitingCallback', event: 'PING', to: 'awaitingCallback', guard: 'inline-1', at: 2 },
    { from: 'awaitingCallback', event: 'CALLBACK', to: 'authorizing', guard: 'not(hasError)', at: 3 },
    { from: 'authorizing', event: 'xstate.done.actor.authorize', to: 'failed.accessDenied', at: 4 },
  ];

  it('numbers the steps taken and marks visited states and the failure it ended in', () => {
    const text = toMermaidPath(callbackFlow, trace);
    expect(text).toContain('  idle --> awaitingCallback : (1) START [knownProvider]\n');
    expect(text).toContain('  awaitingCallback --> awaitingCallback : (2) PING [inline-1]\n');
    expect(text).toContain('  authorizing --> accessDenied : (4) done: authorize\n');
    expect(text).toContain('  idle --> configuration : START\n');
    expect(text).toContain('  class idle,awaitingCallback,authorizing,accessDenied visited\n');
    expect(text.endsWith('  class accessDenied failed\n')).toBe(true);
  });

  it('marks the failing state it is given, and nothing when the flow succeeded', () => {
    expect(toMermaidPath(callbackFlow, trace.slice(0, 3), 'authorizing')).toContain('  class authorizing failed\n');
    const success = [...trace.slice(0, 3), { from: 'authorizing', event: 'xstate.done.actor.authorize', to: 'done', guard: 'userFound', at: 4 }];
    expect(toMermaidPath(callbackFlow, success)).not.toContain('classDef failed');
    expect(toMermaidPath(callbackFlow, trace.slice(0, 3), 'failed')).toContain('  class failed failed\n');
    expect(toMermaidPath(callbackFlow, trace.slice(0, 3), 'nowhere')).not.toContain('classDef failed');
  });

  it('lists repeated steps on one edge', () => {
    const machine = createMachine({ id: 'loop', initial: 'a', states: { a: { on: { X: 'b' } }, b: { on: { Y: 'a' } } } });
    const loops = Array.from({ length: 6 }, (_, i) => (i % 2 === 0 ? { from: 'a', event: 'X', to: 'b', at: i } : { from: 'b', event: 'Y', to: 'a', at: i }));
    expect(toMermaidPath(machine, loops)).toContain('  a --> b : (1, 3, 5) X\n');
    expect(toMermaidPath(machine, [...loops, ...loops])).toContain('  a --> b : (1, 3, 5, 7…) X\n');
  });
});
