// A failure state names its error type in `meta.error`; an unknown name would silently become CallbackRouteError at
// run time. Checked when a flow is declared, so a typo fails at start with the names that are valid.
import type { AnyStateMachine } from 'xstate';
import { errorClassesByType, InvalidProvider } from '../../core/errors.js';

/** The `meta.error` names of a machine's states that are no known error type, as `state.path: Name`. */
function unknownFailureTypes(machine: AnyStateMachine): string[] {
  const out: string[] = [];
  const visit = (node: AnyStateMachine['root']) => {
    const error = (node.meta as { error?: unknown } | undefined)?.error;
    if (error !== undefined && (typeof error !== 'string' || !errorClassesByType.has(error))) out.push(`${node.path.join('.')}: ${String(error)}`);
    for (const child of Object.values(node.states) as AnyStateMachine['root'][]) visit(child);
  };
  visit(machine.root);
  return out;
}

/**
 * Throws InvalidProvider when a state of `machine` names an unknown error type in `meta.error`, listing the valid
 * names.
 *
 * @example
 * checkFailureMeta(machine, 'Flow "email-code"')
 */
export function checkFailureMeta(machine: AnyStateMachine, what: string): void {
  const unknown = unknownFailureTypes(machine);
  if (unknown.length === 0) return;
  const valid = [...errorClassesByType.keys()].sort().join(', ');
  throw new InvalidProvider(`${what} names unknown error types in meta.error (${unknown.join('; ')}). Valid names: ${valid}.`);
}
