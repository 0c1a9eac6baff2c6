// The contract between a flow machine and the runtime that drives it across HTTP requests.
// Built-in machines follow it, and so must a custom provider's machine.
import type { AnyStateMachine, EventObject } from 'xstate';
import type { AuthError } from '../core/errors.js';
import type { Account, Profile, User } from '../core/types.js';
import type { FlowServices } from './services.js';

/** What a finished flow hands to the HTTP layer (the output of its final state). */
export type FlowOutcome =
  | {
      ok: true;
      /** Where to send the browser: the validated callback URL, the new-user page, or a signIn-callback string. */
      redirect: string;
      user: User;
      account: Account | null;
      profile?: Profile;
      isNewUser?: boolean;
    }
  | { ok: false; error: AuthError; state?: string };

/** What a paused flow answers while it waits for the browser (kept in context as `response`). */
export type FlowResponse =
  | {
      kind: 'redirect';
      url: string;
      /** The browser comes back by a cross-site POST (OAuth `response_mode=form_post`): the flow cookie must be `SameSite=None`. */
      crossSitePost?: boolean;
    }
  | { kind: 'json'; body: unknown; status?: number }
  | { kind: 'html'; body: string; status?: number };

/** The HTTP routes a flow may be entered from. */
export type FlowRoute = 'signin' | 'callback' | 'options';

/** How a request enters a flow: a fresh actor or the paused one from the flow cookie, and the event to send. */
export interface FlowEntry {
  resume: boolean;
  event: EventObject;
}

/**
 * A provider's flow: the machine, its version, and how requests and services map onto it.
 *
 * @example
 * const flow: FlowDefinition = { machine, version: 1, implement: (s) => ({ actors: { ... } }), input: (s) => ({}), entry: (route) => route === 'callback' ? { resume: false, event: { type: 'SUBMIT' } } : null }
 */
export interface FlowDefinition<TMachine extends AnyStateMachine = AnyStateMachine> {
  machine: TMachine;
  /** Bump when a change makes old paused snapshots meaningless; a flow cookie of another version is an InvalidCheck. */
  version: number;
  /** The machine's actors (and, if needed, guards/actions) bound to this request's services. */
  implement(services: FlowServices): Parameters<TMachine['provide']>[0];
  /** Input for a fresh actor. */
  input(services: FlowServices): unknown;
  /** Routes whose POST must pass the CSRF check before the flow is entered (default: `['signin']`). */
  csrf?: FlowRoute[];
  /** Maps a route to its entry, or null when the route does not apply to this flow (UnknownAction). */
  entry(route: FlowRoute, services: FlowServices): FlowEntry | null;
}
