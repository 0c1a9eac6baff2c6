// The contents of visualizations/: one Markdown page per machine plus an index, rendered purely from the
// machine definitions so that the script writes them and a test compares them without spawning anything.
import type { AnyStateMachine } from 'xstate';
import { awaitingStates, failureStates, machineStates, machineTransitions } from './graph.js';
import { toMermaid } from './mermaid.js';

/** The folder, relative to the repository root, that holds the generated diagrams. */
export const VISUALIZATIONS_DIR = 'visualizations';

const GENERATED = '<!-- Generated from the machine definitions by `npm run visualize`. Do not edit by hand. -->';

/**
 * Renders every generated file: `visualizations/<id>.md` per machine (by registry key, sorted) and
 * `visualizations/README.md` indexing them. Keys are paths relative to the repository root.
 *
 * @example
 * const files = renderDiagramFiles(machines);
 * files['visualizations/README.md']; // '<!-- Generated ... -->\n# Flow diagrams\n...'
 */
export function renderDiagramFiles(machines: Record<string, AnyStateMachine>): Record<string, string> {
  const ids = Object.keys(machines).sort();
  const files: Record<string, string> = {};
  for (const id of ids) files[`${VISUALIZATIONS_DIR}/${fileName(id)}`] = renderMachinePage(id, machines[id]);
  files[`${VISUALIZATIONS_DIR}/README.md`] = renderIndex(ids.map((id) => [id, machines[id]] as const));
  return files;
}

function fileName(id: string): string {
  return `${id.replace(/[^A-Za-z0-9._-]/g, '_')}.md`;
}

function renderMachinePage(id: string, machine: AnyStateMachine): string {
  return [GENERATED, `# \`${id}\` flow`, '', describe(id, machine), '', '```mermaid', toMermaid(machine) + '```', '']
    .join('\n');
}

/** One paragraph saying what the diagram shows, computed from the machine so it cannot go stale. */
function describe(id: string, machine: AnyStateMachine): string {
  const states = machineStates(machine).length;
  const transitions = machineTransitions(machine).length;
  const awaiting = awaitingStates(machine);
  const failures = failureStates(machine);
  const version = machine.version === undefined ? '' : ` (version ${machine.version})`;
  const sentences = [
    `The \`${id}\` machine${version} has ${count(states, 'state')} and ${count(transitions, 'transition')}.`,
    awaiting.length > 0
      ? `It pauses in ${count(awaiting.length, 'awaiting state')} (${codeList(awaiting)}), where the flow is ` +
        'persisted in the flow cookie until the browser comes back; these have a dashed border.'
      : 'It never pauses for the browser: a flow runs from start to finish in one request.',
    failures.length > 0
      ? `It can fail in ${count(failures.length, 'way')}, drawn in red: ${codeList(failures)}.`
      : 'It has no failure states.',
  ];
  return sentences.join(' ');
}

function renderIndex(entries: ReadonlyArray<readonly [string, AnyStateMachine]>): string {
  const lines = [
    GENERATED,
    '# Flow diagrams',
    '',
    'Every built-in sign-in flow is a state machine; each page below is drawn from its definition. ' +
      'Regenerate them with `npm run visualize`; `npm run visualize -- --check` and the test suite fail when ' +
      'one is stale.',
    '',
  ];
  if (entries.length === 0) {
    lines.push('No machines are registered yet.', '');
    return lines.join('\n');
  }
  lines.push('| machine | states | transitions | awaiting states | failure states |', '|---|---|---|---|---|');
  for (const [id, machine] of entries) {
    const cells = [
      `[\`${id}\`](${fileName(id)})`,
      machineStates(machine).length,
      machineTransitions(machine).length,
      awaitingStates(machine).length,
      failureStates(machine).length,
    ];
    lines.push(`| ${cells.join(' | ')} |`);
  }
  lines.push('');
  return lines.join('\n');
}

function count(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}

function codeList(ids: string[]): string {
  return ids.map((id) => `\`${id}\``).join(', ');
}
