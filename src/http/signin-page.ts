// The built-in sign-in page as an answer: to GET {basePath}/signin, and to a browser's sign-in form the server
// refused (a field missing or malformed, an address that is not one), re-shown with the error under its field and
// what was typed kept, rather than a JSON error or a redirect that loses the typing.
import { messagesFor } from '../core/messages/request.js';
import type { MessageId } from '../core/messages/en.js';
import { resolveCallbackUrl } from './callback-url.js';
import { csrf } from './csrf.js';
import { loadSignInPage } from './pages/load.js';
import { publicProviders } from './providers.js';
import { pageNonce, type AuthRequest } from './request.js';
import { html, redirect, redirectsAsData } from './response.js';
import { takeTypedIdentifier } from './signin-memory.js';
import { readVisitor } from './visitor.js';

/** What a refused form puts back on the page: errors by field (message ids), and the values typed (never a password). */
export interface RefusedForm {
  fieldErrors: Readonly<Record<string, MessageId>>;
  /** The address typed into the e-mail link's (or passkeys') field. */
  email?: string;
  /** The identifier typed into a password form. */
  identifier?: string;
}

/**
 * Whether a refused sign-in form is answered with the built-in page: the request is a browser's (it takes HTML and
 * reads no redirects as data) and the built-in page is the app's sign-in page. Other clients (scripts, the browser
 * clients, tests with no Accept) keep their JSON errors; an app with its own page keeps its error redirect.
 */
export function wantsPage(req: AuthRequest): boolean {
  return !req.config.pages.signIn && (req.request.headers.get('accept') ?? '').includes('text/html') && !redirectsAsData(req);
}

/** A typed value worth putting back: one string, of a length a person types. */
export function typedValue(value: unknown): string | undefined {
  return typeof value === 'string' && value.length <= 1000 ? value : undefined;
}

/** The page a person sees on the app's own sign-in path, when it has one (`pages.signIn`). */
function customSignInUrl(req: AuthRequest, callbackUrl: string, error: string | undefined): string | undefined {
  if (!req.config.pages.signIn) return undefined;
  const url = new URL(req.config.pages.signIn, req.origin);
  url.searchParams.set('callbackUrl', callbackUrl);
  if (error) url.searchParams.set('error', error);
  if (req.query.notice === 'passwordReset' || req.query.notice === 'emailRestored') url.searchParams.set('notice', req.query.notice);
  return url.href;
}

/** The sign-in page an app sent the visitor from (`?callbackUrl=` on our origin, other than the home page), as a path. */
function requestedPage(req: AuthRequest, callbackUrl: string): string | undefined {
  if (!req.query.callbackUrl) return undefined;
  const url = URL.parse(callbackUrl);
  if (!url || url.origin !== new URL(req.origin).origin || (url.pathname === '/' && !url.search)) return undefined;
  return `${url.pathname}${url.search}`;
}

/**
 * The sign-in page; with `refused`, re-shown (400) for a form the server refused. An app with its own sign-in page
 * gets the visitor sent there, with the error type.
 *
 * @example
 * return signInPageResponse(req, { fieldErrors: { email: 'signin.field.badAddress' }, email: typed })
 */
export async function signInPageResponse(req: AuthRequest, refused?: RefusedForm): Promise<Response> {
  const callbackUrl = await resolveCallbackUrl(req);
  const error = refused ? undefined : req.query.error;
  const elsewhere = customSignInUrl(req, callbackUrl, error);
  if (elsewhere) return redirect(req, elsewhere);
  const i18n = await messagesFor(req);
  const page = (await loadSignInPage()).renderSignIn({
    providers: publicProviders(req),
    csrfToken: csrf(req).token,
    callbackUrl,
    error,
    theme: req.config.theme,
    basePath: req.config.basePath,
    email: refused ? refused.email : req.query.email,
    nonce: pageNonce(req),
    i18n,
    errorCode: refused ? undefined : req.query.code,
    errorProvider: refused ? undefined : req.query.provider,
    typedIdentifier: refused ? refused.identifier : takeTypedIdentifier(req),
    signedInAs: (await readVisitor(req)).who,
    requestedPage: refused ? undefined : requestedPage(req, callbackUrl),
    notice: refused ? undefined : req.query.notice,
    ...(req.config.sso && req.config.organizations ? { ssoAction: `${req.config.basePath}/sso` } : {}),
    fieldErrors: refused ? Object.fromEntries(Object.entries(refused.fieldErrors).map(([field, id]) => [field, i18n.t(id)])) : undefined,
  });
  return html(req, page, refused ? 400 : 200);
}
