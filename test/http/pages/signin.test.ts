import { describe, expect, it } from 'vitest';
import { renderSignIn, signInErrorMessages, type PageProvider, type SignInPageParams } from '../../../src/http/pages/index.js';
import { forms, hidden, injectedMarkup, tags, text } from './dom.js';

const origin = 'https://app.example';
const provider = (id: string, type: PageProvider['type'], extra: Partial<PageProvider> = {}): PageProvider => ({
  id,
  name: id[0].toUpperCase() + id.slice(1),
  type,
  signinUrl: `${origin}/auth/signin/${id}`,
  callbackUrl: `${origin}/auth/callback/${id}`,
  ...extra,
});

const all: PageProvider[] = [
  provider('github', 'oauth', { style: { brandColor: '#24292f', logo: '/logos/github.svg' } }),
  provider('keycloak', 'oidc'),
  provider('email', 'email'),
  provider('credentials', 'credentials', {
    name: 'Password',
    credentials: { username: { label: 'Username', placeholder: 'ada' }, password: { label: 'Password', type: 'password' } },
  }),
  provider('passkey', 'webauthn', { enableConditionalUI: true }),
];

const base: SignInPageParams = { providers: all, csrfToken: 'csrf-123', callbackUrl: '/dashboard', theme: {}, basePath: '/auth' };
const render = (p: Partial<SignInPageParams> = {}) => renderSignIn({ ...base, ...p });
const formFor = (page: string, action: string) => forms(page).find((f) => f.form.attrs.action === action);

describe('renderSignIn', () => {
  it('renders a POST form with csrf and callbackUrl for each oauth/oidc provider', () => {
    const page = render();
    for (const id of ['github', 'keycloak']) {
      const f = formFor(page, `${origin}/auth/signin/${id}`);
      expect(f, id).toBeDefined();
      expect(f!.form.attrs.method).toBe('post');
      expect(hidden(f!.inner)).toEqual({ csrfToken: 'csrf-123', callbackUrl: '/dashboard' });
    }
    expect(text(page)).toContain('Sign in with Github');
    expect(text(page)).toContain('Sign in with Keycloak');
  });

  it('marks the provider button with its brand colour (an outlined button, never a second solid one) and logo', () => {
    const page = render();
    const button = tags(formFor(page, `${origin}/auth/signin/github`)!.inner, 'button')[0];
    const cls = button.attrs.class.split(' ').find((c) => /^p-\d+$/.test(c))!;
    expect(button.attrs.class.split(' ')).not.toContain('primary');
    expect(page).toMatch(new RegExp(`\\.${cls}\\{--p-brand:#24292f\\}`));
    // A light brand colour would vanish into a light card: the neutral edge stays.
    expect(render({ providers: [provider('pale', 'oauth', { style: { brandColor: '#fafafa' } })] })).not.toMatch(/\.p-0\{/);
    expect(tags(formFor(page, `${origin}/auth/signin/github`)!.inner, 'img')[0].attrs.src).toBe('/logos/github.svg');
  });

  it('renders the email form posting to signinUrl with an email input', () => {
    // Alone, and joined with the passkey section (one address field for both, passkeys in its autofill).
    for (const [providers, autocomplete] of [[[provider('email', 'email')], 'email'], [all, 'email webauthn']] as const) {
      const f = formFor(render({ email: 'ada@example.com', providers: [...providers] }), `${origin}/auth/signin/email`)!;
      const inputs = tags(f.inner, 'input').filter((t) => t.attrs.type !== 'hidden');
      expect(inputs).toHaveLength(1);
      expect(inputs[0].attrs).toMatchObject({ type: 'email', inputmode: 'email', autocomplete, value: 'ada@example.com' });
      expect('required' in inputs[0].attrs).toBe(true);
      expect(hidden(f.inner)).toEqual({ csrfToken: 'csrf-123', callbackUrl: '/dashboard' });
      expect(text(f.inner)).toContain('Email me a sign-in link');
    }
  });

  it('asks for an address once: no two fields share a label, and one button is the primary action', () => {
    const page = render();
    const labels = [...page.matchAll(/<label [^>]*>([^<]*)<\/label>/g)].map((m) => m[1]);
    expect(labels).toEqual(['Username', 'Password', 'Email address']);
    const primary = tags(page, 'button').filter((b) => b.attrs.class?.split(' ').includes('primary'));
    expect(primary).toHaveLength(1);
    expect(tags(formFor(page, `${origin}/auth/callback/credentials`)!.inner, 'button')[0].attrs.class).toBe('button primary');
    // Providers first, whatever the configured order.
    const order = forms(page).map((f) => f.form.attrs.action);
    expect(order.slice(0, 2)).toEqual([`${origin}/auth/signin/github`, `${origin}/auth/signin/keycloak`]);
    expect(render({ providers: [all[3], all[0]] }).indexOf('signin/github')).toBeLessThan(render({ providers: [all[3], all[0]] }).indexOf('callback/credentials'));
  });

  it('after a failed password sign-in puts the typed identifier back and focuses the password', () => {
    const f = formFor(render({ error: 'CredentialsSignin', typedIdentifier: 'ada"><b>' }), `${origin}/auth/callback/credentials`)!;
    const [username, password] = tags(f.inner, 'input').filter((t) => t.attrs.type !== 'hidden');
    expect(username.attrs.value).toBe('ada"><b>');
    expect('autofocus' in password.attrs).toBe(true);
    expect('autofocus' in username.attrs).toBe(false);
    expect(injectedMarkup(f.inner)).toEqual([]);
    // Only after that failure: another error, or none, puts nothing back.
    for (const error of [undefined, 'OAuthCallbackError']) {
      const other = formFor(render({ error, typedIdentifier: 'ada' }), `${origin}/auth/callback/credentials`)!;
      expect(tags(other.inner, 'input').some((t) => t.attrs.value === 'ada' || 'autofocus' in t.attrs)).toBe(false);
    }
  });

  it('tells a signed-in visitor who they are and offers to continue; says why a visitor sent from a page is here', () => {
    const page = render({ signedInAs: 'ada@example.com' });
    // The address may wrap after its @ and dots, never inside a word.
    expect(page).toContain('ada@<wbr>example.<wbr>com');
    expect(text(page.replace(/<wbr>/g, ''))).toContain('You are signed in as ada@example.com.');
    const next = tags(page, 'a').find((a) => a.attrs.href === '/dashboard')!;
    expect(page).toMatch(/<a class="button primary" href="\/dashboard">Continue<\/a>/);
    expect(next.attrs).toMatchObject({ href: '/dashboard', class: 'button primary' });
    expect(tags(page, 'button').filter((b) => b.attrs.class?.split(' ').includes('primary'))).toHaveLength(0);
    // Signed in, a passkey made here joins the account signed in, and the page says so.
    expect(text(page)).toContain('Add a passkey to the account signed in now.');
    expect(text(page)).not.toContain('New here?');
    expect(text(render({ requestedPage: '/protected' }))).toContain('Sign in to see that page (/protected).');
    expect(text(render({ requestedPage: '/protected', error: 'CredentialsSignin' }))).not.toContain('Sign in to see that page');
  });

  it('says a cancelled provider sign-in was cancelled, naming only a listed provider', () => {
    expect(text(render({ error: 'OAuthCallbackError', errorCode: 'access_denied', errorProvider: 'github' }))).toContain('Signing in with Github was cancelled.');
    const unknown = text(render({ error: 'OAuthCallbackError', errorCode: 'access_denied', errorProvider: 'Evil <Corp>' }));
    expect(unknown).toContain('The sign-in was cancelled.');
    expect(unknown).not.toContain('Evil');
    expect(text(render({ error: 'OAuthCallbackError', errorCode: 'other' }))).toContain(signInErrorMessages.OAuthCallbackError);
  });

  it('explains a refused passkey: it is for another account; sign in to the account first to add one', () => {
    const said = text(render({ error: 'AccountNotLinked', errorProvider: 'passkey' }));
    expect(said).not.toContain('already linked to another user');
    expect(said).toContain('sign in to that account first, then add the passkey');
    // Any other provider keeps the general sentence.
    expect(text(render({ error: 'AccountNotLinked', errorProvider: 'github' }))).toContain(signInErrorMessages.AccountNotLinked);
  });

  it('renders the credentials form posting to the callback URL with one labelled input per field', () => {
    const page = render();
    expect(formFor(page, `${origin}/auth/signin/credentials`)).toBeUndefined();
    const f = formFor(page, `${origin}/auth/callback/credentials`)!;
    const inputs = tags(f.inner, 'input').filter((t) => t.attrs.type !== 'hidden');
    // The first non-password field is the username a password manager fills; every field is required.
    expect(inputs.map((i) => [i.attrs.name, i.attrs.type, i.attrs.autocomplete, 'required' in i.attrs])).toEqual([
      ['username', 'text', 'username', true],
      ['password', 'password', 'current-password', true],
    ]);
    expect(inputs[0].attrs.placeholder).toBe('ada');
    for (const input of inputs) {
      expect(tags(f.inner, 'label').some((l) => l.attrs.for === input.attrs.id)).toBe(true);
    }
    expect(hidden(f.inner)).toEqual({ csrfToken: 'csrf-123', callbackUrl: '/dashboard' });
    expect(text(f.inner)).toContain('Sign in with Password');
  });

  it('keeps a given autocomplete and ignores unknown input types', () => {
    const creds = provider('credentials', 'credentials', {
      credentials: { otp: { type: 'password', autocomplete: 'one-time-code' }, who: { type: 'hidden"><b>' } },
    });
    const inputs = tags(render({ providers: [creds] }), 'input').filter((t) => t.attrs.type !== 'hidden');
    expect(inputs.map((i) => [i.attrs.name, i.attrs.type, i.attrs.autocomplete])).toEqual([
      ['otp', 'password', 'one-time-code'],
      ['who', 'text', 'username'],
    ]);
  });

  it('leaves the webauthn hook with its data attributes and loads the script once', () => {
    const page = render({ providers: [...all, provider('passkey2', 'webauthn')] });
    const hooks = tags(page).filter((t) => 'data-webauthn' in t.attrs);
    expect(hooks).toHaveLength(2);
    expect(hooks[0].attrs).toMatchObject({
      'data-provider-id': 'passkey',
      'data-options-url': '/auth/webauthn-options/passkey',
      'data-callback-url': `${origin}/auth/callback/passkey`,
      'data-csrf-token': 'csrf-123',
      'data-callback-url-after': '/dashboard',
    });
    const emails = tags(page, 'input').filter((t) => t.attrs.name === 'email' && t.attrs.id?.startsWith('passkey'));
    expect(emails.map((e) => e.attrs.autocomplete)).toEqual(['email webauthn', 'email']);
    const scripts = tags(page, 'script');
    expect(scripts).toHaveLength(1);
    expect(scripts[0].attrs.src).toBe('/auth/webauthn-script.js');
    expect('defer' in scripts[0].attrs).toBe(true);
    expect(text(page)).toContain('Sign in with a passkey');
    expect(text(page)).toContain('Create a passkey');
    // Without the script nothing may submit: the passkey buttons are plain buttons.
    expect(tags(page, 'button').filter((b) => b.attrs['data-action']).every((b) => b.attrs.type === 'button')).toBe(true);
  });

  it('omits the script when there is no webauthn provider', () => {
    expect(tags(render({ providers: all.slice(0, 2) }), 'script')).toHaveLength(0);
  });

  it('has at most one "or": after the oauth buttons, grouped together, and none between the forms', () => {
    // github+keycloak | credentials, then email joined with passkey: one divider.
    expect(render().match(/class="divider"/g)).toHaveLength(1);
    expect(render({ providers: all.slice(2) })).not.toContain('class="divider"');
    expect(render({ providers: all.slice(0, 2) })).not.toContain('class="divider"');
  });

  const passwordWithAddress = provider('password', 'credentials', { name: 'Password', credentials: { email: { type: 'email' }, password: { type: 'password' } } });
  const oneAddress = [all[0], passwordWithAddress, provider('email', 'email'), all[4]];

  it('one address field: a password form that asks for an address holds it for the e-mail link and passkeys', () => {
    const page = render({ providers: oneAddress, email: 'ada@example.com' });
    expect(tags(page, 'input').filter((t) => t.attrs.type === 'email')).toHaveLength(1);
    const f = formFor(page, `${origin}/auth/callback/password`)!;
    expect(f.form.attrs).toHaveProperty('data-webauthn');
    expect(tags(f.inner, 'input').find((t) => t.attrs.type === 'email')!.attrs).toMatchObject({ name: 'email', autocomplete: 'username webauthn', value: 'ada@example.com' });
    // One solid button; the e-mail link posts the same form to the e-mail provider, unchecked by the browser.
    expect(tags(page, 'button').filter((b) => b.attrs.class?.split(' ').includes('primary'))).toHaveLength(1);
    expect(tags(f.inner, 'button').filter((b) => b.attrs.type === 'submit')).toHaveLength(1);
    const link = tags(f.inner, 'input').find((t) => t.attrs.type === 'submit')!;
    expect(link.attrs).toMatchObject({ formaction: `${origin}/auth/signin/email`, value: 'Email me a sign-in link', class: 'button secondary' });
    expect('formnovalidate' in link.attrs).toBe(true);
    expect(formFor(page, `${origin}/auth/signin/email`)).toBeUndefined();
    expect(page.match(/class="divider"/g)).toHaveLength(1);
  });

  it('names unlabelled address and password fields in the reader\'s language; an app\'s own label stays', async () => {
    const { translatorFor } = await import('../../../src/core/messages/request.js');
    for (const locale of ['ar', 'ja', 'de']) {
      const i18n = await translatorFor(locale, {});
      const labels = [...render({ providers: [passwordWithAddress], i18n }).matchAll(/<label [^>]*>([^<]*)<\/label>/g)].map((m) => m[1]);
      expect(labels).toEqual([i18n.t('signin.emailLabel'), i18n.t('signin.passwordLabel')]);
      expect(labels).not.toContain('Password');
    }
    const own = render({ providers: [provider('c', 'credentials', { credentials: { email: { label: 'Work e-mail', type: 'email' } } })] });
    expect(own).toContain('>Work e-mail</label>');
  });

  it('a Password provider under its default name says "Sign in" in the reader\'s language; a name of the app\'s stays', async () => {
    const { translatorFor } = await import('../../../src/core/messages/request.js');
    const credentials = { email: { type: 'email' }, password: { type: 'password' } };
    const password = provider('password', 'credentials', { name: 'Password', credentials, recoverUrl: `${origin}/auth/recover/password` });
    for (const locale of ['en', 'ar', 'ja']) {
      const i18n = await translatorFor(locale, {});
      const f = formFor(render({ providers: [password], i18n }), `${origin}/auth/callback/password`)!;
      const button = /<button type="submit"[^>]*>([^<]*)<\/button>/.exec(f.inner)![1];
      expect(button).toBe(i18n.t('common.signIn'));
    }
    const named = formFor(render({ providers: [{ ...password, name: 'Staff account' }] }), `${origin}/auth/callback/password`)!;
    expect(/<button type="submit"[^>]*>([^<]*)<\/button>/.exec(named.inner)![1]).toBe('Sign in with Staff account');
  });

  it('shows an error under the field it is about, with the typed value kept and focus on it', () => {
    const page = render({ providers: oneAddress, email: 'not an address', fieldErrors: { email: 'Enter an address & try <again>' } });
    const input = tags(page, 'input').find((t) => t.attrs.type === 'email')!;
    expect(input.attrs).toMatchObject({ value: 'not an address', 'aria-invalid': 'true', 'aria-describedby': `${input.attrs.id}-error` });
    expect('autofocus' in input.attrs).toBe(true);
    expect(page).toMatch(new RegExp(`<p class="field-error" id="${input.attrs.id}-error">Enter an address &amp; try &lt;again&gt;</p>`));
    // Right after its input, not in a box at the top.
    expect(page.indexOf(`id="${input.attrs.id}-error"`) - page.indexOf(`id="${input.attrs.id}"`)).toBeLessThan(700);
    expect(page).not.toContain('role="alert"');
    // A password form's missing password: the identifier typed comes back, focus on the password.
    const missing = render({ providers: [passwordWithAddress], typedIdentifier: 'ada@example.com', fieldErrors: { password: 'Fill in this field.' } });
    const [email, password] = tags(missing, 'input').filter((t) => t.attrs.type !== 'hidden');
    expect(email.attrs.value).toBe('ada@example.com');
    expect('autofocus' in email.attrs).toBe(false);
    expect(password.attrs).toMatchObject({ 'aria-invalid': 'true' });
    expect(password.attrs.value).toBeUndefined();
  });

  it('shows a friendly sentence per error type', () => {
    expect(text(render({ error: 'CredentialsSignin' }))).toContain('Sign in failed. Check the details you provided are correct.');
    expect(text(render({ error: 'OAuthAccountNotLinked' }))).toContain(
      'To confirm your identity, sign in with the same account you used originally.',
    );
    for (const type of ['MissingCSRF', 'OAuthCallbackError', 'AccessDenied', 'Verification', 'EmailSignInError', 'AccountNotLinked', 'WebAuthnVerificationError']) {
      const alert = render({ error: type }).match(/<div class="alert" role="alert">([\s\S]*?)<\/div>/)?.[1];
      expect(alert, type).toBe(signInErrorMessages[type]);
    }
    expect(render()).not.toContain('role="alert"');
  });

  it('falls back to a default message for unknown types, showing only an identifier-like code', () => {
    const unknown = text(render({ error: 'SomethingNew' }));
    expect(unknown).toContain('Unable to sign in.');
    expect(unknown).toContain('(SomethingNew)');
    const sentence = render({ error: 'Call 555-0100 to unlock your account' });
    expect(text(sentence)).not.toContain('555-0100');
    expect(text(render({ error: 'toString' }))).toContain('Unable to sign in.');
  });

  it('escapes or drops hostile values', () => {
    const page = render({
      providers: [
        provider('evil', 'oauth', { name: '<img src=x onerror=alert(1)>"\'', style: { brandColor: 'red;background:url(x)', logo: 'javascript:alert(1)' } }),
        provider('evil2', 'oidc', { style: { bg: '#fff</style><script>alert(1)</script>', logo: 'data:text/html,<script>alert(1)</script>' } }),
        provider('mail', 'email'),
        provider('pk', 'webauthn', { id: 'pk"><script>alert(1)</script>' }),
      ],
      callbackUrl: '"><script>alert(1)</script>',
      csrfToken: '"onfocus="alert(1)',
      email: '"><svg onload=alert(1)>',
      error: '<script>alert(1)</script>',
    });
    expect(injectedMarkup(page, ['/auth/webauthn-script.js'])).toEqual([]);
    expect(page).not.toContain('<script>alert');
    expect(page).not.toContain('url(x)');
    expect(page).not.toMatch(/\.p-\d+\{/);
    expect(tags(page, 'img')).toHaveLength(0);
    expect(text(page)).toContain('Sign in with <img src=x onerror=alert(1)>"\'');
    for (const f of forms(page)) expect(hidden(f.inner).callbackUrl).toBe('"><script>alert(1)</script>');
    const email = tags(page, 'input').find((t) => t.attrs.name === 'email')!;
    expect(email.attrs.value).toBe('"><svg onload=alert(1)>');
    const hook = tags(page).find((t) => 'data-webauthn' in t.attrs)!;
    expect(hook.attrs['data-provider-id']).toBe('pk"><script>alert(1)</script>');
    expect(hook.attrs['data-options-url']).toBe('/auth/webauthn-options/pk%22%3E%3Cscript%3Ealert(1)%3C%2Fscript%3E');
  });

  it('drops a provider whose form target is not http(s) or relative', () => {
    const page = render({ providers: [provider('x', 'oauth', { signinUrl: 'javascript:alert(1)' }), provider('c', 'credentials', { callbackUrl: ' javascript:alert(1)' })] });
    expect(forms(page)).toHaveLength(0);
    expect(injectedMarkup(page)).toEqual([]);
  });

  it('is an accessible document: lang, viewport, labels and a heading', () => {
    const page = render();
    expect(page.startsWith('<!doctype html>')).toBe(true);
    expect(tags(page, 'html')[0].attrs.lang).toBe('en');
    expect(tags(page, 'h1')).toHaveLength(1);
    const ids = tags(page, 'input').filter((t) => t.attrs.type !== 'hidden').map((t) => t.attrs.id);
    const labelled = new Set(tags(page, 'label').map((l) => l.attrs.for));
    expect(ids.every((id) => id && labelled.has(id))).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
  });
});
