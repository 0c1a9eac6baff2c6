// The built-in error page: a heading and a sentence per error type, the status code the type calls for,
// and in debug mode the flow trace that explains why a sign-in failed.

import { attr, html, safeUrl, type SafeHtml } from '../../core/html-escape.js';
import type { MessageId } from '../../core/messages/en.js';
import { english } from '../../core/messages/english.js';
import { type Translator } from '../../core/messages/translator.js';
import { signInErrorIds } from './signin-errors.js';
import { homeLinkText, rich } from './text.js';
import { layout, type Theme } from './theme.js';

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
  /** The page's language; English when absent. */
  i18n?: Translator;
}

interface Entry {
  heading: MessageId;
  message: MessageId;
  /** Which link helps the user on: trying again, or leaving. */
  link: 'signin' | 'home';
}

const pages: Readonly<Record<string, Entry>> = {
  Configuration: { heading: 'error.Configuration.heading', message: 'error.Configuration.message', link: 'home' },
  // A database or Redis outage: nothing is wrong with the request nor the configuration, and trying again helps.
  ServiceUnavailable: { heading: 'error.ServiceUnavailable.heading', message: 'error.ServiceUnavailable.message', link: 'signin' },
  AccessDenied: { heading: 'error.AccessDenied.heading', message: 'error.AccessDenied.message', link: 'signin' },
  // A request the browser should never have sent (a tampered form, a factor that is not the user's): say so, blame
  // no server configuration.
  InvalidRequest: { heading: 'error.InvalidRequest.heading', message: 'error.InvalidRequest.message', link: 'home' },
  // A form far longer than any sign-in needs (a pasted file as a password): refused before it is read or hashed.
  BodyTooLarge: { heading: 'error.BodyTooLarge.heading', message: 'error.BodyTooLarge.message', link: 'signin' },
  Verification: { heading: 'error.Verification.heading', message: 'error.Verification.message', link: 'signin' },
  // The factor check locked after too many wrong codes: say so, and name the ways back in.
  SecondFactorFailed: { heading: 'error.SecondFactorFailed.heading', message: 'error.SecondFactorFailed.message', link: 'signin' },
  // The check waited too long: nothing was wrong, the way on is a new sign-in.
  SecondFactorExpired: { heading: 'error.SecondFactorExpired.heading', message: 'error.SecondFactorExpired.message', link: 'signin' },
};

// An error with no page of its own still says what to do next, and offers it: signing in again.
const fallback: Entry = { heading: 'error.fallback.heading', message: 'error.fallback.message', link: 'signin' };

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
  if (error === 'BodyTooLarge') return 413;
  return 200;
}

function entryFor(error: string): { entry: Entry; known: boolean } {
  if (Object.hasOwn(pages, error)) return { entry: pages[error], known: true };
  // Sign-in errors normally land on the sign-in page; if one is routed here, say the same thing.
  if (Object.hasOwn(signInErrorIds, error)) {
    return { entry: { heading: 'error.signIn.heading', message: signInErrorIds[error]!, link: 'signin' }, known: true };
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
  const i18n = params.i18n ?? english;
  // The type is no sentence for a person: only a reference in small print, for a support request (never "Default").
  const reference = !known && params.error !== 'Default' && codeLike.test(params.error) ? html`<p class="muted center small">${rich(i18n, 'error.reference', { code: params.error })}</p>` : '';
  const next = known ? '' : html`<p class="muted center">${i18n.t('error.fallback.next')}</p>`;
  const signin = safeUrl(params.signinUrl);
  const home = safeUrl(params.homeUrl);
  let link: SafeHtml | string = '';
  if (entry.link === 'signin' && signin) {
    link = html`<a class="button"${attr('href', signin)}>${i18n.t('common.signIn')}</a>`;
    if (home) link = html`${link}<p class="center small"><a${attr('href', home)}>${homeLinkText(params.homeUrl, i18n)}</a></p>`;
  } else if (home) link = html`<p class="center"><a${attr('href', home)}>${homeLinkText(params.homeUrl, i18n)}</a></p>`;
  const trace = params.trace
    ? html`<details><summary>${i18n.t('error.trace')}</summary><pre>${params.trace}</pre></details>`
    : '';
  const heading = i18n.t(entry.heading);
  const body = html`<h1>${heading}</h1>
<p class="muted center">${i18n.t(entry.message)}</p>
${next}
${link}
${reference}
${trace}`;
  return { html: layout({ title: heading, theme: params.theme, body, nonce: params.nonce, i18n }), status: errorPageStatus(params.error) };
}
