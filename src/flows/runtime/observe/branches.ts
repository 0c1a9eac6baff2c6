// Which branch a microstep took, read from what XState reports and never by asking a guard again: the branches the
// state before offered for the event (XState's public getNextTransitions), in the order XState tries them, that fit
// the state after. An unguarded branch ends the search: XState takes it whenever it gets that far.
import { getNextTransitions, getStateNodes } from 'xstate';
import type { AnyMachineSnapshot, AnyStateMachine, AnyStateNode, AnyTransitionDefinition, StateValue } from 'xstate';

/** Whether an event descriptor (`'CALLBACK'`, `'xstate.done.*'`, `'*'`) takes events of this type, as XState matches them. */
function matches(descriptor: string, type: string): boolean {
  if (descriptor === type || descriptor === '*') return true;
  if (!descriptor.endsWith('.*')) return false;
  const prefix = descriptor.slice(0, -2).split('.');
  const parts = type.split('.');
  return prefix.every((part, i) => part === parts[i]);
}

/** The order XState tries a node's branches in: the exact descriptor first, then wildcards, the longest first. */
function rank(t: AnyTransitionDefinition, type: string): number {
  return t.eventType === type ? Number.MAX_SAFE_INTEGER : t.eventType.length;
}

/** The atomic nodes of a state value, in the order XState visits its regions. */
function leavesOf(machine: AnyStateMachine, value: StateValue): AnyStateNode[] {
  const seen = new Set<AnyStateNode>();
  for (const node of getStateNodes(machine.root, value)) if (node.type === 'atomic' || node.type === 'final') seen.add(node);
  return [...seen];
}

/** The state value a machine starts in, before any eventless transition: its public `initial` targets, all regions. */
export function initialValue(node: AnyStateNode): StateValue {
  if (node.type === 'parallel') return Object.fromEntries(Object.entries(node.states).map(([key, child]) => [key, initialValue(child as AnyStateNode)]));
  const target = (node.initial?.target as AnyStateNode[] | undefined)?.[0];
  if (!target) return {};
  return target.type === 'compound' || target.type === 'parallel' ? { [target.key]: initialValue(target) } : target.key;
}

/**
 * The branches one microstep may have taken, one list per active leaf before it that has a candidate: a list of one
 * is the branch taken; a longer list holds every branch that fits what was observed (XState's order), none ruled out.
 * `before` is the snapshot the step started from, `after` the microstep's; `eventless` for an `always` step.
 */
export function branchesTaken(before: AnyMachineSnapshot, type: string, eventless: boolean, after: AnyMachineSnapshot): AnyTransitionDefinition[][] {
  const machine = before.machine as AnyStateMachine;
  const active = new Set(getStateNodes(machine.root, after.value));
  const offered = getNextTransitions(before).filter((t) => (eventless ? t.eventType === '' : t.eventType !== '' && matches(t.eventType, type)));
  const taken: AnyTransitionDefinition[][] = [];
  const seen = new Set<AnyTransitionDefinition>();
  for (const leaf of leavesOf(machine, before.value)) {
    const chain: AnyStateNode[] = [];
    for (let node: AnyStateNode | undefined = leaf; node; node = node.parent) chain.push(node);
    const tried = offered
      .filter((t) => chain.includes(t.source))
      .map((t, order) => ({ t, order }))
      .sort((a, b) => chain.indexOf(a.t.source) - chain.indexOf(b.t.source) || rank(b.t, type) - rank(a.t, type) || a.order - b.order)
      .map(({ t }) => t);
    const fits: AnyTransitionDefinition[] = [];
    for (const t of tried) {
      const fit = t.target && t.target.length > 0 ? t.target.every((n) => active.has(n as AnyStateNode)) : active.has(leaf);
      if (fit) fits.push(t);
      // XState takes the first branch whose guard passes; one without a guard always does.
      if (t.guard === undefined) break;
    }
    const fresh = fits.filter((t) => !seen.has(t));
    for (const t of fresh) seen.add(t);
    if (fresh.length > 0) taken.push(fresh);
  }
  return taken;
}
