// Collects which states and transitions of a machine the model-based tests took, from the same trace entries
// the runtime records (a flow record's `trace`), and reports or enforces 100 %.
import type { AnyStateMachine } from 'xstate';
import {
  machineStates,
  machineTransitions,
  namedTrace,
  statesVisited,
  transitionKey,
  type TraceEntry,
  type TransitionRef,
} from './graph.js';

export interface CoverageCount {
  covered: number;
  total: number;
  /** State ids, or transition keys (`from --event [guard]--> to`), in definition order. */
  missing: string[];
}

export interface CoverageReport {
  states: CoverageCount;
  transitions: CoverageCount;
  /**
   * Transitions counted as covered only through steps that fitted several branches (a trace entry's `branches`: the
   * step took one of them, which one was not observed), in definition order.
   */
  ambiguous: string[];
}

export interface FlowCoverage {
  /** Adds one path's trace. Every path starts in the initial state, so that counts as covered too. */
  record(entries: readonly TraceEntry[]): void;
  report(): CoverageReport;
  /** One printable line: `credentials  states 11/11 100.0 %  transitions 15/15 100.0 %`. */
  format(): string;
  /** Throws an error listing every state and transition no recorded path took. */
  assertComplete(): void;
}

/**
 * A coverage collector for one machine. A state is covered when a recorded path was in it (entered it, left
 * it, or started there; a compound parent when a child is); a transition when an entry has its key, or lists it
 * among the `branches` it fitted (those are reported as `ambiguous` too).
 *
 * A run's trace is the `trace` of its flow record, which a custom `logger.debug` receives as
 * `debug('flow <machine> <status>', record)`.
 *
 * @example
 * const coverage = createCoverage(machine);
 * for (const path of paths) coverage.record(await drive(path)); // drive: play the path over HTTP, return record.trace
 * console.log(coverage.format());
 * coverage.assertComplete();
 */
export function createCoverage(machine: AnyStateMachine): FlowCoverage {
  const states = machineStates(machine);
  const transitions = uniqueKeys(machineTransitions(machine));
  const visitedStates = new Set<string>();
  const takenTransitions = new Set<string>();
  const fittedTransitions = new Set<string>();

  const report = (): CoverageReport => ({
    states: count(states, visitedStates),
    transitions: count(transitions, new Set([...takenTransitions, ...fittedTransitions])),
    ambiguous: transitions.filter((key) => fittedTransitions.has(key) && !takenTransitions.has(key)),
  });

  return {
    record(recorded) {
      const entries = namedTrace(machine, recorded);
      for (const id of statesVisited(machine, entries)) visitedStates.add(id);
      for (const entry of entries) {
        if (entry.branches) for (const branch of entry.branches) fittedTransitions.add(transitionKey(branch));
        else takenTransitions.add(transitionKey(entry));
      }
    },
    report,
    format() {
      const r = report();
      const ambiguous = r.ambiguous.length > 0 ? ` (${r.ambiguous.length} only through steps that fitted several branches)` : '';
      return `${machine.id.padEnd(20)} states ${ratio(r.states).padEnd(16)} transitions ${ratio(r.transitions)}${ambiguous}`;
    },
    assertComplete() {
      const r = report();
      if (r.states.missing.length === 0 && r.transitions.missing.length === 0) return;
      const lines = [`Flow coverage of "${machine.id}" is incomplete.`];
      if (r.states.missing.length > 0) lines.push(`States never visited (${r.states.missing.length}):`, ...r.states.missing.map((s) => `  ${s}`));
      if (r.transitions.missing.length > 0) {
        lines.push(`Transitions never taken (${r.transitions.missing.length}):`, ...r.transitions.missing.map((t) => `  ${t}`));
      }
      throw new Error(lines.join('\n'));
    },
  };
}

// Two branches with the same key (an unreachable duplicate) would otherwise count twice but be coverable once.
function uniqueKeys(refs: TransitionRef[]): string[] {
  return [...new Set(refs.map(transitionKey))];
}

function count(all: string[], covered: Set<string>): CoverageCount {
  const missing = all.filter((item) => !covered.has(item));
  return { covered: all.length - missing.length, total: all.length, missing };
}

function ratio({ covered, total }: CoverageCount): string {
  const percent = total === 0 ? 100 : (covered / total) * 100;
  return `${covered}/${total} ${percent.toFixed(1)} %`;
}
