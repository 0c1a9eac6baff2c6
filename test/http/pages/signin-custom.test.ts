// The sign-in page lists custom providers (a type with its own flow): a form that POSTs signin/:id with the CSRF
// token and the fields the provider declares, rendered with the same escaping as the built-in sections.
import { describe, expect, it } from 'vitest';
import { assign, setup } from 'xstate';
import { defineFlow } from '../../../src/flows/runtime/contract.js';
import { renderSignIn, type PageProvider, type SignInPageParams } from '../../../src/http/pages/index.js';
import { testAuth } from '../../support/auth-app.js';
import { forms, hidden, injectedMarkup, tags, text } from './dom.js';

const origin = 'https://app.example';
const custom = (id: string, extra: Partial<PageProvider> = {}): PageProvider => ({
  id,
  name: 'E-mail code',
  type: 'email-code',
  signinUrl: `${origin}/auth/signin/${id}`,
  callbackUrl: `${origin}/auth/callback/${id}`,
  ...extra,
});
const emailField = { email: { label: 'Email', type: 'email', autocomplete: 'email', placeholder: 'you@example.com', required: true } };

const base: SignInPageParams = { providers: [], csrfToken: 'csrf-123', callbackUrl: '/dashboard', theme: {}, basePath: '/auth' };
const render = (p: Partial<SignInPageParams>) => renderSignIn({ ...base, ...p });
const formFor = (page: string, action: string) => forms(page).find((f) => f.form.attrs.action === action);

describe('renderSignIn, custom providers', () => {
  it('renders a POST form to signin/:id with the CSRF token, the callback URL and the declared fields', () => {
    const page = render({ providers: [custom('email-code', { formFields: emailField })], email: 'ada@example.com' });
    const f = formFor(page, `${origin}/auth/signin/email-code`)!;
    expect(f.form.attrs.method).toBe('post');
    expect(hidden(f.inner)).toEqual({ csrfToken: 'csrf-123', callbackUrl: '/dashboard' });
    const inputs = tags(f.inner, 'input').filter((t) => t.attrs.type !== 'hidden');
    expect(inputs).toHaveLength(1);
    expect(inputs[0].attrs).toMatchObject({ name: 'email', type: 'email', autocomplete: 'email', placeholder: 'you@example.com', value: 'ada@example.com' });
    expect('required' in inputs[0].attrs).toBe(true);
    expect(tags(f.inner, 'label').map((l) => l.attrs.for)).toEqual([inputs[0].attrs.id]);
    expect(text(f.inner)).toContain('Sign in with E-mail code');
  });

  it('renders a provider without fields as a button, in its own section', () => {
    const page = render({ providers: [custom('a'), custom('b', { name: 'Magic', formFields: emailField })] });
    const f = formFor(page, `${origin}/auth/signin/a`)!;
    expect(tags(f.inner, 'input').filter((t) => t.attrs.type !== 'hidden')).toEqual([]);
    expect(tags(f.inner, 'button')[0].attrs.type).toBe('submit');
    // Forms follow one another without an "or" (the page's one divider comes after provider buttons only).
    expect(page).not.toContain('class="divider"');
    expect(page).toContain('<div class="forms">');
    // Input ids stay unique across sections.
    const ids = tags(page, 'input').filter((t) => t.attrs.type !== 'hidden').map((t) => t.attrs.id);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('escapes or drops hostile values', () => {
    const page = render({
      providers: [
        custom('x', {
          name: '<script>alert(1)</script>',
          formFields: { '"><svg onload=alert(1)>': { label: '<b>hi</b>', type: 'hidden"><script>', placeholder: '" onfocus="alert(1)' } },
        }),
        custom('y', { signinUrl: 'javascript:alert(1)' }),
      ],
      email: '"><svg onload=alert(1)>',
    });
    expect(injectedMarkup(page)).toEqual([]);
    expect(page).not.toContain('<script>alert');
    expect(forms(page)).toHaveLength(1);
    const input = tags(page, 'input').find((t) => t.attrs.type !== 'hidden')!;
    expect(input.attrs).toMatchObject({ name: '"><svg onload=alert(1)>', type: 'text', placeholder: '" onfocus="alert(1)' });
    expect(input.attrs.value).toBeUndefined();
    expect(text(page)).toContain('Sign in with <script>alert(1)</script>');
  });
});

describe('GET {basePath}/signin with a custom provider', () => {
  const machine = setup({ types: { context: {} as { n: number } } }).createMachine({ id: 'noop', context: { n: 0 }, initial: 'idle', states: { idle: { entry: assign({ n: 1 }) } } });
  const flow = defineFlow({ machine, version: 1, entry: () => null });

  it('lists it with the fields it declares, and none for a built-in provider', async () => {
    const t = testAuth({
      providers: [
        { id: 'email-code', name: 'E-mail code', type: 'email-code', flow, formFields: emailField } as never,
        { id: 'plain', name: 'Plain', type: 'plain', flow, formFields: 'not fields' } as never,
      ],
    });
    const page = await (await t.client.get('/auth/signin')).text();
    const csrfToken = await t.csrfToken();
    const f = formFor(page, 'http://localhost:3000/auth/signin/email-code')!;
    expect(hidden(f.inner).csrfToken).toBe(csrfToken);
    expect(tags(f.inner, 'input').find((i) => i.attrs.name === 'email')?.attrs.type).toBe('email');
    const plain = formFor(page, 'http://localhost:3000/auth/signin/plain')!;
    expect(tags(plain.inner, 'input').filter((i) => i.attrs.type !== 'hidden')).toEqual([]);
    expect(text(plain.inner)).toContain('Sign in with Plain');
  });
});
