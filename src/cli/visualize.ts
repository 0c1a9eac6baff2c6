// `authchart visualize`: the diagrams of the flows an app's configuration runs: each provider's flow (a custom
// flow drawn from its own machine), the standard sign-in tail, and the second-factor flow when it is configured.
import type { AnyStateMachine } from 'xstate';
import type { AuthConfig } from '../core/options.js';
import type { ResolvedProvider } from '../core/provider.js';
import { renderDiagramFiles, VISUALIZATIONS_DIR } from '../devtools/diagram-files.js';
import { machines as builtIn } from '../devtools/machines.js';
import { toMermaid } from '../devtools/mermaid.js';
import { flowFor } from '../flows/registry.js';

/** The machines of a configuration, by name: `<provider id>` for each provider's flow, plus `signin` (and `factors`). */
export async function configuredMachines(config: AuthConfig): Promise<Record<string, AnyStateMachine>> {
  const drawn: Record<string, AnyStateMachine> = {};
  for (const p of config.providers ?? []) {
    const provider = (typeof p === 'function' ? (p as () => unknown)() : p) as ResolvedProvider;
    drawn[provider.id] = (await flowFor(provider)).machine;
  }
  drawn.signin = builtIn.signin;
  if (config.secondFactor !== undefined && builtIn.factors) drawn.factors = builtIn.factors;
  return drawn;
}

/** Markdown with one Mermaid diagram per machine, for stdout. */
export function diagramsMarkdown(drawn: Record<string, AnyStateMachine>): string {
  return Object.entries(drawn)
    .map(([name, machine]) => `## ${name} (machine \`${machine.id}\`)\n\n\`\`\`mermaid\n${toMermaid(machine)}\`\`\`\n`)
    .join('\n');
}

/** The files `--out <dir>` writes: one page per machine and an index, named relative to the folder. */
export function diagramFiles(drawn: Record<string, AnyStateMachine>): Record<string, string> {
  const files = renderDiagramFiles(drawn);
  return Object.fromEntries(Object.entries(files).map(([path, text]) => [path.slice(VISUALIZATIONS_DIR.length + 1), text]));
}
