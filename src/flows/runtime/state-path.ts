// A machine's state value as one short string, for errors, records and span events.
import type { StateValue } from 'xstate';

/**
 * The dot path of the active leaves (`failed.accessDenied`), from the public state value.
 *
 * @example statePathOf({ failed: 'accessDenied' }) // 'failed.accessDenied'
 */
export function statePathOf(value: StateValue): string {
  if (typeof value === 'string') return value;
  return Object.entries(value)
    .map(([key, sub]) => (sub === undefined || (typeof sub === 'object' && Object.keys(sub).length === 0) ? key : `${key}.${statePathOf(sub as StateValue)}`))
    .join(',');
}

