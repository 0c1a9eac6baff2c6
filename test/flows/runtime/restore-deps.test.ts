// A resumed flow gets its deps in context without xstate walking them: restoring revives actor references by
// visiting every nested object of the context, and deps (the request, the whole configuration) is the largest part.
import { describe, expect, it } from 'vitest';
import { assign, fromPromise, setup } from 'xstate';
import { AWAITING, type FlowDeps } from '../../../src/flows/runtime/contract.js';
import { settleMachine } from '../../../src/flows/runtime/run.js';

const machine = setup({
  types: { context: {} as { deps: FlowDeps & { probe: number }; code?: string; seen?: number; response?: unknown }, input: {} as { deps: FlowDeps & { probe: number } } },
  actors: { use: fromPromise<number, { deps: { probe: number } }>(async ({ input }) => input.deps.probe) },
  guards: { probed: ({ context }) => context.deps.probe > 0 },
}).createMachine({
  id: 'restore-deps',
  initial: 'idle',
  context: ({ input }) => ({ deps: input.deps }),
  output: ({ context }) => ({ code: context.code, seen: context.seen }),
  states: {
    idle: { on: { START: { target: 'waiting', actions: assign({ code: 'abc', response: () => ({ kind: 'json' as const, body: {} }) }) } } },
    waiting: { tags: [AWAITING], on: { RESUME: { guard: 'probed', target: 'using' } } },
    using: { invoke: { src: 'use', input: ({ context }) => ({ deps: context.deps }), onDone: { target: 'done', actions: assign({ seen: ({ event }) => event.output }) } } },
    done: { type: 'final' },
  },
});

/** Deps whose enumerable `probe` counts its reads: anything walking the object reads it. */
function countingDeps() {
  const reads = { n: 0 };
  const deps = { req: { config: { logger: { debugEnabled: false }, debug: false } } } as unknown as FlowDeps & { probe: number };
  Object.defineProperty(deps, 'probe', { enumerable: true, get: () => ++reads.n });
  return { deps, reads };
}

describe('restoring a paused flow', () => {
  it('reads deps only where the machine does: its guard and its actor, never a walk of the object', async () => {
    const start = countingDeps();
    const first = await settleMachine(machine, { deps: start.deps }, { type: 'START' }, undefined, [], []);
    expect(first.kind).toBe('paused');
    if (first.kind !== 'paused') return;
    expect(first.paused.context).toEqual({ code: 'abc' });

    const { deps, reads } = countingDeps();
    const resumed = await settleMachine(machine, { deps }, { type: 'RESUME' }, first.paused, [], []);
    // The guard read probe twice (whether the paused state takes RESUME, then taking it), the actor once: 3. The
    // restore itself read nothing.
    expect(resumed).toMatchObject({ kind: 'done', output: { code: 'abc', seen: 3 } });
    expect(reads.n).toBe(3);
  });

  it('still refuses an event the paused state does not take, without running anything', async () => {
    const start = countingDeps();
    const first = await settleMachine(machine, { deps: start.deps }, { type: 'START' }, undefined, [], []);
    if (first.kind !== 'paused') throw new Error('not paused');
    const { deps, reads } = countingDeps();
    const refused = await settleMachine(machine, { deps }, { type: 'OTHER' }, first.paused, [], []);
    expect(refused.kind).toBe('refused');
    expect(reads.n).toBe(0);
  });
});
