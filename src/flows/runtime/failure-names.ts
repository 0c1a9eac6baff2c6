// A failure state names its error in `meta.error`; a name that is no error type would silently become a
// CallbackRouteError at run time. defineFlow calls this, so a misspelt name stops the app at start, not a user.
import type { AnyStateMachine } from 'xstate';
import { errorClassesByType, InvalidProvider } from '../../core/errors.js';

type StateNode = AnyStateMachine['root'];

/**
 * Throws InvalidProvider when a state of `machine` names an unknown error type (or a non-string) in `meta.error`,
 * listing the states at fault and the valid names.
 *
 * @example
 * checkFailureNames(machine) // a state with meta: { error: 'CredentialSignin' } throws: did you mean CredentialsSignin?
 */
export function checkFailureNames(machine: AnyStateMachine): void {
  const wrong: string[] = [];
  const visit = (node: StateNode) => {
    const meta = node.meta as { error?: unknown } | undefined;
    if (meta && 'error' in meta && !(typeof meta.error === 'string' && errorClassesByType.has(meta.error))) {
      wrong.push(`${node.path.join('.') || '(root)'}: ${JSON.stringify(meta.error) ?? String(meta.error)}`);
    }
    for (const child of Object.values(node.states) as StateNode[]) visit(child);
  };
  visit(machine.root);
  if (wrong.length === 0) return;
  throw new InvalidProvider(
    `Flow "${machine.id}" names unknown error types in meta.error (${wrong.join('; ')}). Valid names: ${[...errorClassesByType.keys()].sort().join(', ')}.`,
    { expected: [...errorClassesByType.keys()], actual: wrong },
  );
}
