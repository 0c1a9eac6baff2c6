// Draws a machine definition as a Mermaid `stateDiagram-v2` (GitHub and the inspector render it), and the
// same diagram with the path one flow took highlighted.
import type { AnyStateMachine, AnyStateNode, AnyTransitionDefinition } from 'xstate';
import {
  awaitingStates,
  failureStates,
  nodeTransitions,
  stateId,
  namedTrace,
  stateNodes,
  statesVisited,
  toTransitionRef,
  transitionKey,
  type TraceEntry,
} from './graph.js';

const CLASS_DEFS = {
  awaiting: 'stroke-dasharray:6 4,stroke-width:2px',
  failure: 'fill:#fdecea,stroke:#c62828,color:#7f1d1d',
  visited: 'fill:#e6f4ea,stroke:#1e8e3e,stroke-width:2px',
  failed: 'fill:#f28b82,stroke:#b71c1c,stroke-width:4px,color:#000',
} as const;

const LEGEND = 'dashed border = awaiting, the flow is persisted here and waits for the browser';

/**
 * Draws a machine as a Mermaid `stateDiagram-v2`: the initial state (`[*] -->`), final states (`--> [*]`),
 * compound states nested, transitions labelled `event [guard]` (`done: authorize` for an invoke's done event,
 * `error: authorize` for its error, `always`, `after 500ms`), invoked actors as a description line in their
 * state, `awaiting` states with a dashed border and a legend note, failure states in red. The output depends
 * only on the definition, in document order, so it can be committed and compared.
 *
 * @example
 * const markdown = '```mermaid\n' + toMermaid(myProviderMachine) + '```\n';
 */
export function toMermaid(machine: AnyStateMachine): string {
  return render(machine);
}

/**
 * The diagram of `toMermaid` with one flow's path highlighted: the states it visited get the class `visited`,
 * the transitions it took are numbered by step (`(1, 4) CALLBACK`), and the failing state gets the class
 * `failed`. Without `failedState`, a trace that ends in a failure state marks that state.
 *
 * @example
 * const trace: TraceEntry[] = []; // filled by traceEntriesFromMicrostep while the flow ran
 * const diagram = toMermaidPath(machine, trace); // ends in failed.accessDenied: that state is marked
 */
export function toMermaidPath(machine: AnyStateMachine, recorded: readonly TraceEntry[], failedState?: string): string {
  const trace = namedTrace(machine, recorded);
  const steps = new Map<string, number[]>();
  trace.forEach((entry, index) => {
    // A step that fitted several branches numbers each of them.
    for (const key of (entry.branches ?? [entry]).map((b) => transitionKey(b))) steps.set(key, [...(steps.get(key) ?? []), index + 1]);
  });
  const last = trace.at(-1);
  const failed = failedState ?? (last && failureStates(machine).includes(last.to) ? last.to : undefined);
  return render(machine, { states: statesVisited(machine, trace), steps, failed });
}

interface Highlight {
  states: Set<string>;
  steps: Map<string, number[]>;
  failed: string | undefined;
}

interface Edge {
  from: string;
  to: string;
  label: string;
}

function render(machine: AnyStateMachine, highlight?: Highlight): string {
  const nodes = stateNodes(machine);
  const ids = mermaidIds(nodes);
  const awaiting = awaitingStates(machine);
  const rootTransitions = nodeTransitions(machine.root);
  // Transitions declared on the machine itself apply in every state; they are drawn from a pseudo-state.
  const anyState = rootTransitions.length > 0 ? uniqueId('anyState', new Set(ids.values())) : undefined;
  const idOf = (node: AnyStateNode) => (node === machine.root ? anyState! : ids.get(node)!);

  // Each edge goes into the innermost block that contains both ends, which keeps Mermaid's layout nested.
  const edges = new Map<AnyStateNode, Edge[]>();
  for (const node of [machine.root, ...nodes]) {
    for (const t of nodeTransitions(node)) {
      const label = edgeLabel(t, highlight);
      const targets = t.target && t.target.length > 0 ? t.target : [t.source];
      for (const target of targets) {
        const block = node === machine.root ? machine.root : commonBlock(machine, t.source, target);
        edges.set(block, [...(edges.get(block) ?? []), { from: idOf(t.source), to: idOf(target), label }]);
      }
    }
  }

  const lines = ['stateDiagram-v2'];
  if (anyState) lines.push(`  state "any state" as ${anyState}`);
  const legendAt = awaiting[0];
  const writeBlock = (parent: AnyStateNode, indent: string) => {
    const children = Object.values(parent.states) as AnyStateNode[];
    if (parent.type === 'compound' && parent.config.initial !== undefined) {
      for (const target of parent.initial.target) lines.push(`${indent}[*] --> ${idOf(target)}`);
    }
    children.forEach((child, index) => {
      if (parent.type === 'parallel' && index > 0) lines.push(`${indent}--`);
      const id = idOf(child);
      const label = child.key === id ? '' : `"${escapeText(child.key, true)}" as `;
      const invokes = child.invoke.map((inv, i) => `invoke ${actorName(inv, i, child)}`);
      if (Object.keys(child.states).length > 0) {
        lines.push(`${indent}state ${label}${id} {`);
        writeBlock(child, `${indent}  `);
        lines.push(`${indent}}`);
        // A composite state has no description lines; its invokes go into a note.
        for (const text of invokes) lines.push(`${indent}note right of ${id} : ${escapeText(text, true)}`);
      } else if (invokes.length > 0) {
        // The explicit `state "key" as id` keeps the name as the title above the description lines.
        lines.push(`${indent}state "${escapeText(child.key, true)}" as ${id}`);
        for (const text of invokes) lines.push(`${indent}${id} : ${escapeText(text, true)}`);
      } else {
        lines.push(`${indent}${label ? `state ${label}` : ''}${id}`);
      }
      if (legendAt === stateId(child)) lines.push(`${indent}note right of ${id} : ${LEGEND}`);
    });
    for (const edge of edges.get(parent) ?? []) {
      lines.push(`${indent}${edge.from} --> ${edge.to} : ${escapeText(edge.label)}`);
    }
    for (const child of children) if (child.type === 'final') lines.push(`${indent}${idOf(child)} --> [*]`);
  };
  writeBlock(machine.root, '  ');

  // Later class statements win where a state has several, so the failing state is styled last.
  const byId = new Map(nodes.map((node) => [stateId(node), node] as const));
  const leaves = (list: Iterable<string>) =>
    [...list].map((id) => byId.get(id)).filter((n): n is AnyStateNode => !!n && Object.keys(n.states).length === 0);
  const classes: [keyof typeof CLASS_DEFS, AnyStateNode[]][] = [
    ['failure', leaves(failureStates(machine))],
    ['awaiting', leaves(awaiting)],
    ['visited', highlight ? leaves(machineOrder(nodes, highlight.states)) : []],
    // The failing state may be a composite one (an actor error while in a compound state), so no leaf filter.
    ['failed', [highlight?.failed && byId.get(highlight.failed)].filter((n): n is AnyStateNode => !!n)],
  ];
  for (const [name, members] of classes) {
    if (members.length > 0) lines.push(`  classDef ${name} ${CLASS_DEFS[name]}`);
  }
  for (const [name, members] of classes) {
    if (members.length > 0) lines.push(`  class ${members.map(idOf).join(',')} ${name}`);
  }
  return lines.join('\n') + '\n';
}

/** Visited ids in document order, so the output does not depend on the order of the trace. */
function machineOrder(nodes: AnyStateNode[], ids: Set<string>): string[] {
  return nodes.map(stateId).filter((id) => ids.has(id));
}

/** The innermost compound node that contains both the source and the target of a transition. */
function commonBlock(machine: AnyStateMachine, source: AnyStateNode, target: AnyStateNode): AnyStateNode {
  const a = source.path.slice(0, -1);
  const b = target.path.slice(0, -1);
  let block: AnyStateNode = machine.root;
  for (let i = 0; i < a.length && a[i] === b[i]; i++) block = block.states[a[i]] as AnyStateNode;
  return block;
}

function edgeLabel(t: AnyTransitionDefinition, highlight: Highlight | undefined): string {
  const ref = toTransitionRef(t);
  const text = ref.guard === undefined ? eventLabel(t) : `${eventLabel(t)} [${ref.guard}]`;
  const steps = highlight?.steps.get(transitionKey(ref));
  if (!steps) return text;
  const shown = steps.length > 4 ? `${steps.slice(0, 4).join(', ')}…` : steps.join(', ');
  return `(${shown}) ${text}`;
}

/** The event of a transition in a diagram label: the invoke events are shortened to `done: X` / `error: X`. */
function eventLabel(t: AnyTransitionDefinition): string {
  const type = String(t.eventType);
  const source = t.source;
  if (type === '') return 'always';
  for (const [i, inv] of source.invoke.entries()) {
    const name = actorName(inv, i, source);
    if (type === `xstate.done.actor.${inv.id}`) return `done: ${name}`;
    if (type === `xstate.error.actor.${inv.id}`) return `error: ${name}`;
    if (type === `xstate.snapshot.${inv.id}`) return `snapshot: ${name}`;
  }
  const delayed = source.after.find((a) => a.eventType === type);
  if (delayed) return `after ${typeof delayed.delay === 'number' ? `${delayed.delay}ms` : delayed.delay}`;
  if (type === `xstate.done.state.${source.id}`) return 'onDone';
  // The same events written by hand in `on`.
  const match = /^xstate\.(done|error)\.actor\.(.+)$/.exec(type);
  return match ? `${match[1]}: ${match[2]}` : type;
}

/** How an invoked actor is named: its explicit id, else its `src` (xstate generates `0.machine.state` ids). */
function actorName(inv: AnyStateNode['invoke'][number], index: number, node: AnyStateNode): string {
  const generated = inv.id === `${index}.${node.id}`;
  if (!generated) return inv.id;
  return typeof inv.src === 'string' ? inv.src : 'inline actor';
}

// Words the Mermaid state-diagram grammar reads as keywords when they stand alone as an id.
const RESERVED = new Set([
  'state', 'note', 'end', 'class', 'classdef', 'direction', 'style', 'as', 'click', 'hide', 'left', 'right',
  'of', 'default', 'acctitle', 'accdescr', 'graph', 'flowchart',
]);

/**
 * A Mermaid id per state node: the key when it is a plain word and unique in the machine (the readable case),
 * otherwise the path joined with `_`. Mermaid ids are global, so `a.idle` and `b.idle` must not share one.
 */
function mermaidIds(nodes: AnyStateNode[]): Map<AnyStateNode, string> {
  const keyCount = new Map<string, number>();
  for (const node of nodes) keyCount.set(node.key, (keyCount.get(node.key) ?? 0) + 1);
  const used = new Set<string>();
  const ids = new Map<AnyStateNode, string>();
  for (const node of nodes) {
    const plain = keyCount.get(node.key) === 1 ? node.key : node.path.join('_');
    const id = uniqueId(plain.replace(/[^A-Za-z0-9_]/g, '_'), used);
    used.add(id);
    ids.set(node, id);
  }
  return ids;
}

function uniqueId(base: string, used: Set<string>): string {
  const safe = /^[A-Za-z_]/.test(base) && !RESERVED.has(base.toLowerCase()) ? base : `s_${base}`;
  let id = safe;
  for (let n = 2; used.has(id); n++) id = `${safe}_${n}`;
  return id;
}

// `;` ends a Mermaid statement and `#` starts an entity, so both (and markup) are written as entity codes. A
// colon is fine in an edge label (`done: authorize` stays readable) but breaks notes and descriptions.
const ENTITIES: Record<string, string> = { '#': '#35;', ';': '#59;', '"': '#quot;', '<': '#lt;', '>': '#gt;', ':': '#58;' };

function escapeText(text: string, colons = false): string {
  return text.replace(/\s+/g, ' ').replace(colons ? /[#;"<>:]/g : /[#;"<>]/g, (c) => ENTITIES[c]);
}
