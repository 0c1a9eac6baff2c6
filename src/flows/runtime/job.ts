// The job contract: a machine that runs for a request on a provider's behalf rather than to sign someone in (a
// provider-token refresh, a back-channel logout, an RP-initiated logout). Its definition builds the machine's input
// from the request, so no caller assembles deps by hand; a job that waits for the browser pauses in the provider's
// logout slot.
import type { AnyStateMachine } from 'xstate';
import { InvalidProvider } from '../../core/errors.js';
import type { ResolvedProvider } from '../../core/provider.js';
import type { RequestContext } from '../../core/request-context.js';

/**
 * A job: its machine and version, the input it is created with for a request, and where it pauses if it does.
 *
 * @example
 * export const backchannelLogoutJob = defineJob({ machine, version: 1, input: (req, provider) => ({ deps: { req, provider: oauthProviderFor(req, provider) } }) })
 */
export interface JobDefinition<TArgs = void, TMachine extends AnyStateMachine = AnyStateMachine> {
  machine: TMachine;
  version: number;
  /** The machine's input for this request (its `deps` never reach a cookie). */
  input(req: RequestContext, provider: ResolvedProvider, args: TArgs): Record<string, unknown> & { deps: { req: RequestContext } };
  /** A job that waits for the browser (an RP-initiated logout) pauses in the provider's logout slot. */
  pausesIn?: 'logout';
  /** How long one run may take (ms), when longer than the runtime's default. */
  settleTimeoutMs?(args: TArgs): number;
}

/**
 * Declares a job.
 *
 * @example
 * const job = defineJob({ machine, version: 1, input: (req) => ({ deps: { req } }) })
 */
export function defineJob<TArgs, TMachine extends AnyStateMachine>(definition: JobDefinition<TArgs, TMachine>): JobDefinition<TArgs, TMachine> {
  if (!definition.machine?.id) throw new InvalidProvider('A job needs a machine with an `id`.');
  if (!Number.isInteger(definition.version) || definition.version < 1) throw new InvalidProvider(`Job "${definition.machine.id}" needs a positive integer \`version\`.`);
  return Object.freeze({ ...definition });
}
