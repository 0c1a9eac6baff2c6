// The events a model test labels its generated paths with: each external event and each invoked actor's outcome
// carries the branch it stands for, which the test then stages (a fault, a result) while it plays the path over HTTP.
import type { AnyEventObject } from 'xstate';
import type { ModelPath } from './model-paths.js';

/** An event of a model path with the branch it stands for ("the database is down", "a wrong code"). */
export type Labelled = AnyEventObject & { branch: string };

/** An invoked actor that resolved with `output`. */
export const done = (actor: string, branch: string, output?: unknown): Labelled => ({ type: `xstate.done.actor.${actor}`, branch, output });

/** An invoked actor that threw `error` (by default an Error named after the branch). */
export const failed = (actor: string, branch: string, error: unknown = new Error(branch)): Labelled => ({ type: `xstate.error.actor.${actor}`, branch, error });

/** An event a request brings (not an actor's outcome). */
export const isExternal = (e: AnyEventObject): boolean => !e.type.startsWith('xstate.');

/** The path cut into requests: each external event and the actor outcomes that follow it. */
export function requestsOf(path: ModelPath): Labelled[][] {
  const out: Labelled[][] = [];
  for (const e of path.events as Labelled[]) {
    if (isExternal(e)) out.push([e]);
    else out.at(-1)!.push(e);
  }
  return out;
}

/**
 * A path cut while an actor runs (its continuations are on other paths) played on with an outcome that pauses:
 * `next` names, per state an actor runs in, the outcome to add; the path's final state is marked with a `+`.
 */
export function playedToPause(paths: ModelPath[], next: Record<string, Labelled | undefined>): ModelPath[] {
  return paths.map((path) => {
    const more = next[path.finalState];
    return more ? { ...path, events: [...path.events, more], finalState: `${path.finalState}+` } : path;
  });
}
