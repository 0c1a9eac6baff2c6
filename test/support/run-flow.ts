// The runtime's runFlow as the HTTP layer calls it: with the sign-in stages the registry names for the configuration.
import type { FlowDefinition, FlowDeps, FlowEntry } from '../../src/flows/runtime/contract.js';
import { runFlow as run, type FlowResult, type RunFlowOptions } from '../../src/flows/runtime/flow.js';
import type { PausedFlow } from '../../src/flows/runtime/run.js';
import { signInStages } from '../../src/flows/registry.js';

export type { FlowResult };

/** runFlow with the configuration's stages (the standard tail, and the second-factor machine when configured). */
export async function runFlow(flow: FlowDefinition, deps: FlowDeps, entry: FlowEntry, paused?: PausedFlow, options: RunFlowOptions = {}): Promise<FlowResult> {
  return run(flow, deps, entry, paused, { ...options, stages: await signInStages(deps.req.config) });
}
