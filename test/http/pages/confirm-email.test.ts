import { describe, expect, it } from 'vitest';
import { renderConfirmEmail, type ConfirmEmailPageParams } from '../../../src/http/pages/index.js';
import { forms, hidden, injectedMarkup, tags, text } from './dom.js';

const base: ConfirmEmailPageParams = {
  theme: {},
  actionUrl: 'https://app.example/auth/callback/email',
  hiddenFields: { token: 'abc123', email: 'ada@example.com', callbackUrl: '/home' },
  email: 'ada@example.com',
};

describe('renderConfirmEmail', () => {
  it('asks "Sign in as {email}?" with one POST button carrying the hidden fields', () => {
    const page = renderConfirmEmail(base);
    expect(text(page)).toContain('Sign in as ada@example.com?');
    const all = forms(page);
    expect(all).toHaveLength(1);
    expect(all[0].form.attrs).toMatchObject({ method: 'post', action: 'https://app.example/auth/callback/email' });
    expect(hidden(all[0].inner)).toEqual(base.hiddenFields);
    expect(tags(all[0].inner, 'button').map((b) => b.attrs.type)).toEqual(['submit']);
    // Nothing on the page follows the link by itself.
    expect(tags(page, 'meta').some((m) => m.attrs['http-equiv'])).toBe(false);
    expect(tags(page, 'script')).toHaveLength(0);
  });

  it('escapes hostile fields and email', () => {
    const page = renderConfirmEmail({
      ...base,
      hiddenFields: { token: '"><script>alert(1)</script>', 'x" onmouseover="alert(1)': 'v' },
      email: '<svg onload=alert(1)>@example.com',
    });
    expect(injectedMarkup(page)).toEqual([]);
    expect(hidden(page)).toEqual({ token: '"><script>alert(1)</script>', 'x" onmouseover="alert(1)': 'v' });
    expect(text(page)).toContain('Sign in as <svg onload=alert(1)>@example.com?');
  });

  it('asks to continue without naming anyone when no checked address is given', () => {
    const page = renderConfirmEmail({ ...base, email: undefined });
    expect(text(page)).toContain('Continue signing in?');
    expect(text(page)).not.toContain('Sign in as');
    expect(forms(page)).toHaveLength(1);
  });

  it('renders no form when the action is not http(s) or relative', () => {
    const page = renderConfirmEmail({ ...base, actionUrl: 'javascript:alert(1)' });
    expect(forms(page)).toHaveLength(0);
    expect(page).not.toContain('abc123');
  });
});
