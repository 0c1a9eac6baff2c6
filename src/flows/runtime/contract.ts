// The public contract of a sign-in flow: what a machine gets, how routes enter it, how it pauses and how it ends.
// The built-in flows are written against exactly this; so is any custom provider's flow.
import type { MessageId } from '../../core/messages/en.js';
import type { AnyStateMachine, EventObject } from 'xstate';
import type { Account, AuthMethod, Profile, User } from '../../core/types.js';
import type { FlowKeyValueStore } from '../../core/flow-store/scoped.js';
import type { RequestContext } from '../../core/request-context.js';
import type { TokenSpend } from '../../session/spend.js';
import type { ResolvedProvider } from '../../core/provider.js';
import { InvalidProvider } from '../../core/errors.js';
import { checkFailureMeta } from './failure-meta.js';

/** The tag of a state where a flow pauses, sealed in its provider's flow cookie, until the browser comes back. */
export const AWAITING = 'awaiting';

/**
 * What a flow's actors work against, handed to the machine as `input.deps` and kept in context while a request
 * runs. The runtime puts it in on create and restore and strips it before persisting: it never reaches a cookie.
 */
export interface FlowDeps {
  /** This request's facts and cookie jar (its `config` is the resolved configuration, `config.adapter` the adapter). */
  req: RequestContext;
  /** The provider whose flow this is. */
  provider: ResolvedProvider;
  /** The validated destination after sign-in. */
  callbackUrl: string;
  /**
   * This provider's part of the flow store: JSON values with a time to live and an atomic `take`, shared by every
   * instance (the adapter's database, Redis, or memory in development). Keys are namespaced per provider.
   */
  store: FlowKeyValueStore;
  /**
   * The signed-in user of this request, read through the session gate (expiry, revocation), or null. For a flow
   * that acts for a signed-in user (approving another device, adding a factor). Read once per request.
   */
  session(): Promise<FlowSession | null>;
}

/** The signed-in session as a flow sees it ({@link FlowDeps.session}). */
export interface FlowSession {
  userId: string;
  /** How the session was verified (`pwd`, `otp`, ...); empty for a session from before authchart recorded it. */
  amr: readonly AuthMethod[];
  authTime: Date | null;
}

/** The input every flow machine is created with (plus whatever the flow's own `input` adds). */
export interface FlowInput {
  deps: FlowDeps;
  callbackUrl: string;
  providerId: string;
  /** When the flow started (ms); paused flows expire by guard, since `after` timers are not restored. */
  startedAt: number;
}

/**
 * The HTTP routes a flow may be entered from: `POST signin/:id`, `GET|POST callback/:id`, `GET webauthn-options/:id`,
 * and `POST link/:id` (a signed-in user adding this provider; a flow with no `link` entry is entered as at `signin`).
 */
export type FlowRoute = 'signin' | 'callback' | 'options' | 'link';

/** What a paused flow answers while it waits for the browser (kept in context as `response`; never persisted). */
export type FlowResponse =
  | {
      kind: 'redirect';
      url: string;
      /** The browser comes back by a cross-site POST (OAuth `response_mode=form_post`): the flow cookie must be `SameSite=None`. */
      crossSitePost?: boolean;
    }
  | { kind: 'json'; body: unknown; status?: number }
  | { kind: 'html'; body: string; status?: number }
  /** A built-in page, rendered by the HTTP layer (it adds the CSRF token, the theme and the security headers). */
  | { kind: 'page'; page: 'confirmEmail'; data: { email: string; provider: string }; status?: number }
  /**
   * A themed form that POSTs to this provider's callback with the browser's CSRF token: what a flow that asks the
   * user for something (a code, an answer) shows instead of hand-written HTML.
   */
  | { kind: 'page'; page: 'form'; data: FlowFormPage; status?: number }
  /** A Password provider's sign-up form: each problem beside its field, the values kept (never the password). */
  | { kind: 'page'; page: 'signUp'; data: SignUpPage; status?: number };

/** The content of the built-in sign-up page. */
export interface SignUpPage {
  /** The Password provider's id (the form posts to `signup/<provider>`). */
  provider: string;
  email: string;
  name: string;
  errors: { email?: FlowText; password?: FlowText };
}

/**
 * Text on a built-in form page: as written (a custom flow's own words), or a built-in message id, shown in the
 * reader's language.
 */
export type FlowText = string | { message: MessageId; values?: Readonly<Record<string, string | number>> };

/** One input of a {@link FlowFormPage}. */
export interface FlowFormField {
  name: string;
  label: FlowText;
  /** `text` (default), `password`, `email`, `tel`, `number`. */
  type?: 'text' | 'password' | 'email' | 'tel' | 'number';
  autocomplete?: string;
  inputmode?: 'numeric' | 'text' | 'email' | 'tel';
  /** An HTML `pattern` (the server still checks what arrives). */
  pattern?: string;
  maxlength?: number;
  /** Defaults to `true`. */
  required?: boolean;
  /** What the field shows filled in (the value a person typed, kept after an error); never for a password. */
  value?: string;
  /** What is wrong with this field, shown beside it. */
  error?: FlowText;
}

/**
 * The content of a built-in form page. Every value is escaped when rendered.
 *
 * @example
 * response: { kind: 'page', page: 'form', data: { title: 'Check your e-mail', message: `We sent a code to ${email}.`,
 *   fields: [{ name: 'code', label: 'Code', inputmode: 'numeric', autocomplete: 'one-time-code' }], submit: 'Sign in' } }
 */
export interface FlowFormPage {
  title: FlowText;
  message?: FlowText;
  /** Shown above the form as an alert (e.g. "That code did not match."). */
  error?: FlowText;
  fields: FlowFormField[];
  /** The button's label; `Continue` by default. */
  submit?: FlowText;
  /** Sent back with the form as they are, e.g. which of the page's actions this form is (`{ action: 'resend' }`). */
  hidden?: Record<string, string>;
  /**
   * A wait before something can be done again (a new code within its cooldown): `text` with `{seconds}`, which
   * built-in pages count down without script; the sentence goes once the wait is over.
   */
  wait?: { seconds: number; text: FlowText };
  /** A picture above the form (an `https:` or `data:image/svg+xml` URL, e.g. a QR code rendered on the server). */
  image?: { src: string; alt: FlowText };
  /**
   * A value to type elsewhere (an authenticator app's setup key), shown as its own block of selectable text with a
   * Copy button (the button needs script; the text does not).
   */
  copyable?: { label: FlowText; value: string };
  /** A link under the message (`https:`, or an app link such as `otpauth://`). */
  link?: { href: string; text: FlowText };
  /**
   * A passkey button under the form (built-in pages load the passkey script for it): it asks for assertion options
   * with `GET <form action>?action=authenticate` and posts the assertion to the form action (`action`, `data`).
   */
  passkey?: { label: FlowText };
  /**
   * A second, lesser action under the form: a button that POSTs `fields` (with the browser's CSRF token) to `action`,
   * e.g. "send a new code" to `signin/<provider id>`. A relative `action` is resolved under `{origin}{basePath}/`.
   */
  alternative?: { action: string; label: FlowText; fields?: Record<string, string> };
  /** A way out at the bottom of the page (e.g. "use a different address": `signin`, resolved like `alternative`). */
  leave?: { href: string; text: FlowText };
}

/**
 * How a flow ends well: the machine's `output`. `authenticated` hands the identity to the standard sign-in tail
 * (signIn callback, linking rules, session), the only code that issues sessions; `redirected` sends the browser
 * elsewhere without a session.
 */
export type FlowOutput =
  | {
      outcome: 'authenticated';
      user: User;
      account: Account;
      profile?: Profile;
      /** Credentials flows: the submitted form, for the signIn callback. */
      credentials?: Record<string, unknown>;
      /**
       * `true`: the flow has proved which **existing** user this is, named by `user.id` (a registered key, an
       * approval by that user). The tail looks the id up through the adapter and applies the signIn callback; an id
       * with no user is an AccountNotLinked failure, never a new user. Nothing is linked or created.
       */
      existingUser?: true;
      /**
       * How the flow verified the user (RFC 8176 names authchart knows: `pwd`, `otp`, `hwk`, `email`, `oauth`), recorded
       * in the session as the flow's claim. Absent: `oauth` for a custom flow. An unknown name fails the flow.
       */
      amr?: AuthMethod[];
      /**
       * A single-use verification token the flow proved but left stored (the built-in e-mail flow with an adapter
       * that has transactions): used up in the transaction that writes the session (`issueSession`), or, when the
       * sign-in pauses for a second factor, with the answer that shows it. Never spent when the answer is an error.
       */
      spend?: TokenSpend;
    }
  | { outcome: 'redirected'; url: string };

/**
 * A flow machine's root `output`: the output of the final state it reached (`output: finalOutput`), so the success
 * state's own `output` is what the runtime reads.
 */
export function finalOutput<T = FlowOutput>({ event }: { event: unknown }): T {
  return (event as { output: T }).output;
}

/** Meta of a failure state: the error type it ends in (`failed.x: { type: 'final', meta: { error: 'InvalidCheck' } }`). */
export type FailureMeta = { error: string };

/** How one request enters a flow: a fresh actor or the paused one from the flow cookie, and the event to send. */
export interface FlowEntry {
  resume: boolean;
  event: EventObject;
}

/**
 * A provider's flow: the machine, its version, and how requests map onto it.
 *
 * @example
 * const flow = defineFlow({ machine, version: 1, csrf: ['callback'],
 *   entry: (route, deps) => route === 'callback' && deps.req.method === 'POST' ? { resume: false, event: { type: 'SUBMIT', form: deps.req.body } } : null })
 */
export interface FlowDefinition<TMachine extends AnyStateMachine = AnyStateMachine> {
  machine: TMachine;
  /** Bump when a change makes old paused snapshots meaningless; a flow cookie of another version is an InvalidCheck. */
  version: number;
  /** Extra input for a fresh actor, beside {@link FlowInput}. */
  input?(deps: FlowDeps): Record<string, unknown>;
  /** Routes whose POST must pass the CSRF check before the flow is entered (default: `['signin']`). */
  csrf?: FlowRoute[];
  /**
   * Maps a route to its entry, or null when the route does not apply to this flow (UnknownAction). `paused` says
   * whether the browser sent this provider's flow cookie.
   */
  entry(route: FlowRoute, deps: FlowDeps, paused: boolean): FlowEntry | null;
}

/** States of a machine tagged {@link AWAITING} that invoke something: such a state could not be persisted safely. */
export function invokingAwaitingStates(machine: AnyStateMachine): string[] {
  const out: string[] = [];
  const visit = (node: AnyStateMachine['root']) => {
    for (const child of Object.values(node.states) as AnyStateMachine['root'][]) {
      if (child.tags.includes(AWAITING) && child.invoke.length > 0) out.push(child.path.join('.'));
      visit(child);
    }
  };
  visit(machine.root);
  return out;
}

// The flows defineFlow returned, by identity: a mark carried on the object itself would survive a spread copy
// (`{ ...flow, machine }`), which would then pass for checked without ever having been.
const defined = new WeakSet<object>();

/**
 * Declares a flow. Checks what can be checked before any request: a version, a machine id, and no awaiting state
 * that invokes an actor (restoring it would run the actor twice), and only known error types in `meta.error`.
 *
 * @example
 * export const codeFlow = defineFlow({ machine: codeMachine, version: 1, entry: (route) => route === 'signin' ? { resume: false, event: { type: 'START' } } : null })
 */
export function defineFlow<TMachine extends AnyStateMachine>(definition: FlowDefinition<TMachine>): FlowDefinition<TMachine> {
  const { machine, version } = definition;
  if (!machine || typeof machine.resolveState !== 'function') throw new InvalidProvider('defineFlow needs an XState machine.');
  if (!machine.id) throw new InvalidProvider('A flow machine needs an `id`.');
  if (!Number.isInteger(version) || version < 1) throw new InvalidProvider(`Flow "${machine.id}" needs a positive integer \`version\`.`);
  const invoking = invokingAwaitingStates(machine);
  if (invoking.length > 0) {
    throw new InvalidProvider(`Flow "${machine.id}" invokes actors in awaiting states (${invoking.join(', ')}), which cannot be persisted.`);
  }
  checkFailureMeta(machine, `Flow "${machine.id}"`);
  const flow = Object.freeze({ ...definition });
  defined.add(flow);
  return flow;
}

/** Whether a value was made by {@link defineFlow} (and so passed its checks). */
export function isDefinedFlow(value: unknown): value is FlowDefinition {
  return typeof value === 'object' && value !== null && defined.has(value);
}
