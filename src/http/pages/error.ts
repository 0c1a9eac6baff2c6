// The built-in error page: a heading and a sentence per error type, the status code the type calls for,
// and in debug mode the flow trace that explains why a sign-in failed.

import { attr, html, safeUrl, type SafeHtml } from '../../core/html-escape.js';
import { signInErrorMessages } from './signin.js';
import { layout, type Theme } from './theme.js';
import { homeLinkText } from './verify-request.js';

/** Input of {@link renderError}. */
export interface ErrorPageParams {
  /** Error type from `?error=`; unknown types get a generic message. */
  error: string;
  theme: Theme;
  basePath: string;
  signinUrl: string;
  homeUrl: string;
  /** Preformatted debug trace; shown in a collapsed block when present. Never pass it outside debug mode. */
  trace?: string;
  /** The response's Content-Security-Policy nonce, put on the page's style. */
  nonce?: string;
}

interface Entry {
  heading: string;
  message: string;
  /** Which link helps the user on: trying again, or leaving. */
  link: 'signin' | 'home';
}

const pages: Readonly<Record<string, Entry>> = {
  Configuration: {
    heading: 'Server error',
    message: 'There is a problem with the server configuration. Check the server logs for more information.',
    link: 'home',
  },
  // A database or Redis outage: nothing is wrong with the request nor the configuration, and trying again helps.
  ServiceUnavailable: {
    heading: 'Temporarily unavailable',
    message: 'Sign-in is temporarily unavailable. Wait a few seconds, then try again.',
    link: 'signin',
  },
  AccessDenied: { heading: 'Access denied', message: 'You do not have permission to sign in.', link: 'signin' },
  // A request the browser should never have sent (a tampered form, a factor that is not the user's): say so, blame
  // no server configuration.
  InvalidRequest: { heading: 'Request not valid', message: 'This request could not be carried out. Go back and try again.', link: 'home' },
  Verification: {
    heading: 'Unable to sign in',
    message: 'The sign in link is no longer valid. It may have been used already or it may have expired.',
    link: 'signin',
  },
};

const fallback: Entry = { heading: 'Something went wrong', message: 'An unexpected error occurred while signing in.', link: 'home' };

const codeLike = /^[A-Za-z][A-Za-z0-9_-]{0,63}$/;

/**
 * The status code of the error page: 500 for `Configuration`, 400 for `InvalidRequest`, 403 for `AccessDenied`
 * and `Verification`, 429 for `RateLimited`, 503 for `ServiceUnavailable` (a store outage), else 200 (the page itself
 * was served fine).
 */
export function errorPageStatus(error: string): number {
  if (error === 'Configuration') return 500;
  if (error === 'InvalidRequest') return 400;
  if (error === 'AccessDenied' || error === 'Verification') return 403;
  if (error === 'RateLimited') return 429;
  if (error === 'ServiceUnavailable') return 503;
  return 200;
}

function entryFor(error: string): { entry: Entry; known: boolean } {
  if (Object.hasOwn(pages, error)) return { entry: pages[error], known: true };
  // Sign-in errors normally land on the sign-in page; if one is routed here, say the same thing.
  if (Object.hasOwn(signInErrorMessages, error)) {
    return { entry: { heading: 'Unable to sign in', message: signInErrorMessages[error], link: 'signin' }, known: true };
  }
  return { entry: fallback, known: false };
}

/**
 * Renders the error page for an error type, with the status code to send it with.
 *
 * @example
 * const { html, status } = renderError({ error: 'Verification', theme: {}, basePath: '/auth', signinUrl: '/auth/signin', homeUrl: '/' })
 */
export function renderError(params: ErrorPageParams): { html: string; status: number } {
  const { entry, known } = entryFor(params.error);
  const code = !known && codeLike.test(params.error) ? html`<p class="muted center"><code>Error code: ${params.error}</code></p>` : '';
  const signin = safeUrl(params.signinUrl);
  const home = safeUrl(params.homeUrl);
  let link: SafeHtml | string = '';
  if (entry.link === 'signin' && signin) link = html`<a class="button"${attr('href', signin)}>Sign in</a>`;
  else if (home) link = html`<p class="center"><a${attr('href', home)}>${homeLinkText(params.homeUrl)}</a></p>`;
  const trace = params.trace
    ? html`<details><summary>Debug trace</summary><pre>${params.trace}</pre></details>`
    : '';
  const body = html`<h1>${entry.heading}</h1>
<p class="muted center">${entry.message}</p>
${code}
${link}
${trace}`;
  return { html: layout({ title: entry.heading, theme: params.theme, body, nonce: params.nonce }), status: errorPageStatus(params.error) };
}
