// Every built-in page and the sign-in mail, rendered in every shipped locale: the document says its language and
// direction, the text is that locale's (its own title, not English), and no raw message id or unfilled `{slot}` shows.
import { describe, expect, it } from 'vitest';
import { shippedLocales } from '../../../src/core/messages/catalog.js';
import { en } from '../../../src/core/messages/en.js';
import { translatorFor } from '../../../src/core/messages/request.js';
import type { Translator } from '../../../src/core/messages/translator.js';
import { renderConfirmEmail, renderError, renderSignIn, renderSignOut, renderVerifyRequest, type PageProvider } from '../../../src/http/pages/index.js';
import { renderAccountPage } from '../../../src/http/pages/account.js';
import { renderBackupCodesPage, renderFactorsPage } from '../../../src/http/pages/factors.js';
import { renderFormPage } from '../../../src/http/pages/form.js';
import { codePage } from '../../../src/flows/second-factor/steps.js';
import { magicLinkMessage } from '../../../src/providers/email.js';
import { text } from './dom.js';

const origin = 'https://app.example';
const providers: PageProvider[] = [
  { id: 'github', name: 'GitHub', type: 'oauth', signinUrl: `${origin}/auth/signin/github`, callbackUrl: `${origin}/auth/callback/github` },
  { id: 'email', name: 'Email', type: 'email', signinUrl: `${origin}/auth/signin/email`, callbackUrl: `${origin}/auth/callback/email` },
  { id: 'credentials', name: 'Password', type: 'credentials', signinUrl: `${origin}/auth/signin/credentials`, callbackUrl: `${origin}/auth/callback/credentials`, credentials: { email: { label: 'Email', type: 'email' }, password: { label: 'Password', type: 'password' } } },
  { id: 'passkey', name: 'Passkey', type: 'webauthn', signinUrl: `${origin}/auth/signin/passkey`, callbackUrl: `${origin}/auth/callback/passkey` },
];

/** Each page, as the routes render it, in the given language. */
function pages(i18n: Translator): Record<string, string> {
  const common = { theme: {}, nonce: 'n', i18n };
  return {
    signin: renderSignIn({ ...common, providers, csrfToken: 'c', callbackUrl: '/', basePath: '/auth', error: 'CredentialsSignin', requestedPage: '/reports' }),
    signedIn: renderSignIn({ ...common, providers, csrfToken: 'c', callbackUrl: '/', basePath: '/auth', signedInAs: 'ada@example.com' }),
    cancelled: renderSignIn({ ...common, providers, csrfToken: 'c', callbackUrl: '/', basePath: '/auth', error: 'OAuthCallbackError', errorCode: 'access_denied', errorProvider: 'github' }),
    signout: renderSignOut({ ...common, csrfToken: 'c', callbackUrl: '/', basePath: '/auth', signoutUrl: `${origin}/auth/signout`, signedInAs: 'ada@example.com' }),
    signedOut: renderSignOut({ ...common, csrfToken: 'c', callbackUrl: '/', basePath: '/auth', signoutUrl: `${origin}/auth/signout`, signedInAs: null }),
    error: renderError({ ...common, error: 'Verification', basePath: '/auth', signinUrl: `${origin}/auth/signin`, homeUrl: origin }).html,
    unknownError: renderError({ ...common, error: 'Weird', basePath: '/auth', signinUrl: `${origin}/auth/signin`, homeUrl: origin, trace: 't' }).html,
    verify: renderVerifyRequest({ ...common, basePath: '/auth', homeUrl: origin, email: 'ada@example.com', resend: { actionUrl: `${origin}/auth/signin/email`, csrfToken: 'c', callbackUrl: '/' }, changeUrl: `${origin}/auth/signin` }),
    confirm: renderConfirmEmail({ ...common, actionUrl: `${origin}/auth/callback/email`, hiddenFields: { token: 't' }, email: 'ada@example.com' }),
    factors: renderFactorsPage({ ...common, authUrl: `${origin}/auth`, csrfToken: 'c', callbackUrl: '/', factors: [
      { id: 'f1', kind: 'totp', label: 'Authenticator app', createdAt: '2026-11-25T10:00:00.000Z', activatedAt: '2026-11-25T10:00:00.000Z' },
      { id: 'f2', kind: 'backup', label: 'Backup code', createdAt: '2026-11-25T10:00:00.000Z', activatedAt: '2026-11-25T10:00:00.000Z' },
    ] }),
    account: renderAccountPage({ ...common, authUrl: `${origin}/auth`, csrfToken: 'c', who: 'ada@example.com', factors: true, notice: 'AccessDenied', done: 'passkeyAdded', managePasskeys: true, sessionControl: 'each',
      passkeys: [{ id: 'cred-1', name: null, createdAt: '2026-11-20T10:00:00.000Z', lastUsedAt: null }, { id: 'cred-2', name: 'Work laptop', createdAt: '2026-11-21T10:00:00.000Z', lastUsedAt: '2026-11-25T10:00:00.000Z' }],
      providers: [{ id: 'github', name: 'GitHub', providerAccountId: '42' }, { id: 'google', name: 'Google' }],
      devices: [{ id: 's1', name: 'Firefox', current: true, createdAt: '2026-11-20T10:00:00.000Z', lastSeenAt: '2026-11-25T10:00:00.000Z' }, { id: 's2', name: 'Chrome', current: false, createdAt: null, lastSeenAt: '2026-11-24T10:00:00.000Z' }] }),
    // No address or name to show ("you"), and a passkey provider (the "add a passkey" button).
    accountAnonymous: renderAccountPage({ ...common, authUrl: `${origin}/auth`, csrfToken: 'c', passkeys: [], managePasskeys: false, passkeyProvider: 'passkey', factors: false, providers: [], devices: [], sessionControl: 'othersLater' }),
    codes: renderBackupCodesPage({ ...common, codes: ['ABCD-EFGH'], continueUrl: `${origin}/account` }),
    // The e-mail code page and the authenticator-app enrolment page, with the ids their machines use.
    emailCode: renderFormPage({ ...common, actionUrl: `${origin}/auth/callback/email`, hiddenFields: { csrfToken: 'c' }, page: {
      title: { message: 'verify.title' }, message: { message: 'emailCode.message', values: { address: 'ada@example.com' } },
      error: { message: 'emailCode.wrong', values: { count: 4 } }, fields: [{ name: 'code', label: { message: 'emailCode.label' } }], submit: { message: 'common.signIn' },
      alternative: { action: `${origin}/auth/signin/email`, label: { message: 'emailCode.resend' }, fields: { email: 'ada@example.com' } },
      leave: { href: `${origin}/auth/signin`, text: { message: 'emailCode.otherAddress' } } } }),
    enrol: renderFormPage({ ...common, actionUrl: `${origin}/auth/second-factor`, hiddenFields: { csrfToken: 'c' }, page: {
      title: { message: 'factor.enrol.title' }, message: { message: 'manage.enrolMessage' }, copyable: { label: { message: 'manage.setupKey' }, value: 'ABCD EFGH' },
      leave: { href: 'factors', text: { message: 'manage.cancel' } },
      image: { src: 'data:image/svg+xml;base64,PHN2Zy8+', alt: { message: 'factor.enrol.qrAlt', values: { account: 'otpauth://totp/x' } } },
      link: { href: 'otpauth://totp/x', text: { message: 'factor.enrol.openApp' } }, error: { message: 'factor.enrol.wrongCode' },
      fields: [{ name: 'code', label: { message: 'factor.code' } }], submit: { message: 'factor.enrol.submit' } } }),
    check: renderFormPage({ ...common, actionUrl: `${origin}/auth/second-factor`, hiddenFields: { csrfToken: 'c' }, page: codePage('stepUp', { message: 'factor.check.wrongCode' }, true), passkeyScript: `${origin}/auth/webauthn-script.js` }),
  };
}

// A message id looks like `signin.error.default`: words joined by dots, the first one a known prefix.
const prefixes = [...new Set(Object.keys(en).map((id) => id.split('.')[0]))];
const rawId = new RegExp(`\\b(?:${prefixes.join('|')})\\.[A-Za-z]+(?:\\.[A-Za-z]+)*\\b`);

describe.each(shippedLocales)('in %s', (locale) => {
  it('every page declares its language and direction, speaks it, and shows no raw id or empty slot', async () => {
    const i18n = await translatorFor(locale, {});
    for (const [name, page] of Object.entries(pages(i18n))) {
      expect(page, name).toContain(`<html lang="${locale}" dir="${locale === 'ar' ? 'rtl' : 'ltr'}">`);
      const shown = text(page);
      expect(shown, name).not.toMatch(rawId);
      expect(shown, name).not.toMatch(/\{[A-Za-z]+\}/);
    }
    const all = pages(i18n);
    expect(text(all.signin)).toContain(i18n.t('signin.title'));
    expect(text(all.signin)).toContain(i18n.t('signin.error.CredentialsSignin'));
    expect(text(all.signin)).toContain(i18n.t('signin.with', { provider: 'GitHub' }));
    expect(text(all.cancelled)).toContain(i18n.t('signin.error.cancelledWith', { provider: 'GitHub' }));
    expect(text(all.signout)).toContain(i18n.t('signout.question'));
    expect(text(all.error)).toContain(i18n.t('error.Verification.message'));
    expect(text(all.verify)).toContain(i18n.t('verify.open'));
    expect(text(all.confirm)).toContain(i18n.t('confirm.note'));
    expect(text(all.factors)).toContain(i18n.t('factors.added', { date: i18n.date('2026-11-25T10:00:00.000Z') }));
    expect(text(all.codes)).toContain(i18n.t('codes.note'));
    expect(text(all.account)).toContain(i18n.t('account.error.AccessDenied'));
    expect(text(all.account)).toContain('Firefox');
    expect(text(all.account)).toContain(i18n.t('account.lastSeen', { date: i18n.date('2026-11-24T10:00:00.000Z') }));
    expect(text(all.check)).toContain(i18n.t('factor.check.titleConfirm'));
    expect(text(all.emailCode)).toContain(i18n.t('emailCode.wrong', { count: 4 }));
    expect(text(all.emailCode)).toContain(i18n.t('emailCode.resend'));
    expect(text(all.emailCode)).toContain(i18n.t('emailCode.otherAddress'));
    expect(text(all.accountAnonymous)).toContain(i18n.t('account.signedInAs', { who: i18n.t('account.you') }));
    expect(text(all.accountAnonymous)).toContain(i18n.t('account.addPasskey'));
    expect(text(all.enrol)).toContain(i18n.t('manage.enrolMessage'));
    expect(text(all.enrol)).toContain(i18n.t('manage.setupKey'));
    expect(text(all.enrol)).toContain(i18n.t('manage.cancel'));
    expect(text(all.account)).toContain(i18n.t('manage.passkeyAdded'));
    expect(text(all.account)).toContain(i18n.t('manage.passkeyUnnamed'));
    expect(text(all.account)).toContain(i18n.t('manage.thisDevice'));
    expect(text(all.account)).toContain(i18n.t('manage.signOutOthers'));
    expect(text(all.accountAnonymous)).toContain(i18n.t('manage.jwtControl'));
    expect(text(all.check)).toContain(i18n.t('factor.check.wrongCode'));
    if (locale !== 'en') {
      // Not English: the English sentences are gone.
      expect(text(all.signin)).not.toContain(en['signin.error.CredentialsSignin']);
      expect(text(all.factors)).not.toContain(en['factors.none']);
    }
  });

  it('the sign-in mail is in the language, with the expiry as a local date', async () => {
    const i18n = await translatorFor(locale, {});
    const expires = new Date('2030-01-02T03:04:05Z');
    const mail = magicLinkMessage({ url: `${origin}/auth/callback/email?token=t`, host: 'app.example', expires, theme: {}, messages: i18n });
    expect(mail.subject).toBe(i18n.t('mail.subject', { host: 'app.example' }));
    expect(mail.text).toContain(i18n.t('mail.expires', { date: i18n.dateTime(expires) }));
    expect(mail.html).toContain(`<html lang="${locale}" dir="${locale === 'ar' ? 'rtl' : 'ltr'}">`);
    expect(mail.html).toContain('<strong>app.example</strong>');
    expect(mail.text + mail.html).not.toMatch(rawId);
    expect(i18n.dateTime(expires)).toMatch(/2030/);
  });
});
