// Dispatch of the user's event handlers: awaited together, and a throwing handler is logged, never fatal.
import { EventError } from './errors.js';
import type { Logger } from './logger.js';
import type { EventsOptions } from './options.js';

export type EventName = keyof EventsOptions;

const eventNames: ReadonlySet<string> = new Set<EventName>(['signIn', 'signOut', 'createUser', 'updateUser', 'linkAccount', 'unlinkAccount', 'session', 'rateLimited', 'factorEnrolled', 'factorRemoved', 'secondFactorFailed', 'organizationCreated', 'memberAdded', 'memberRemoved', 'memberRoleChanged', 'webhookEndpointDisabled', 'invitationSent', 'invitationAccepted', 'invitationRevoked']);

export function isEventName(name: string): name is EventName {
  return eventNames.has(name);
}

/** Calls `events[name](message)`; errors become a logged `EventError` and the caller carries on. */
export async function dispatchEvent(events: EventsOptions, logger: Logger, name: EventName, message: unknown): Promise<void> {
  const handler = events[name] as ((m: unknown) => unknown) | undefined;
  if (!handler) return;
  try {
    await handler(message);
  } catch (err) {
    logger.error(new EventError(err instanceof Error ? err : String(err), { event: name }));
  }
}
