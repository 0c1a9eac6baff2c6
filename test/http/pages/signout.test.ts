import { describe, expect, it } from 'vitest';
import { renderSignOut, type SignOutPageParams } from '../../../src/http/pages/index.js';
import { forms, hidden, injectedMarkup, tags, text } from './dom.js';

const base: SignOutPageParams = { csrfToken: 'csrf-1', callbackUrl: '/bye', theme: {}, basePath: '/auth', signoutUrl: 'https://app.example/auth/signout' };

describe('renderSignOut', () => {
  it('asks for confirmation with a POST form carrying csrf and callbackUrl', () => {
    const page = renderSignOut(base);
    expect(text(page)).toContain('Are you sure you want to sign out?');
    const [f] = forms(page);
    expect(f.form.attrs).toMatchObject({ method: 'post', action: 'https://app.example/auth/signout' });
    expect(hidden(f.inner)).toEqual({ csrfToken: 'csrf-1', callbackUrl: '/bye' });
    expect(tags(f.inner, 'button')[0].attrs.type).toBe('submit');
  });

  it('names who is signed in; says so to a visitor who is not, offering sign-in instead of a button', () => {
    expect(text(renderSignOut({ ...base, signedInAs: 'ada@example.com' }).replace(/<wbr>/g, ''))).toContain('Signed in as ada@example.com.');
    const out = renderSignOut({ ...base, signedInAs: null, signinUrl: '/auth/signin' });
    expect(text(out)).toContain('You are not signed in');
    expect(forms(out)).toEqual([]);
    expect(tags(out, 'a').map((a) => a.attrs.href)).toEqual(['/auth/signin', '/bye']);
  });

  it('escapes hostile values and drops a script action', () => {
    const page = renderSignOut({ ...base, callbackUrl: '"><script>alert(1)</script>', csrfToken: '" autofocus onfocus="alert(1)', signoutUrl: 'javascript:alert(1)' });
    expect(injectedMarkup(page)).toEqual([]);
    const [f] = forms(page);
    expect(f.form.attrs.action).toBeUndefined();
    expect(hidden(f.inner)).toEqual({ csrfToken: '" autofocus onfocus="alert(1)', callbackUrl: '"><script>alert(1)</script>' });
  });
});
