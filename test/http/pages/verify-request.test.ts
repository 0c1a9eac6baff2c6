import { describe, expect, it } from 'vitest';
import { renderVerifyRequest } from '../../../src/http/pages/index.js';
import { forms, hidden, injectedMarkup, tags, text } from './dom.js';

describe('renderVerifyRequest', () => {
  it('tells the user to check their email and links home', () => {
    const page = renderVerifyRequest({ theme: {}, basePath: '/auth', homeUrl: 'https://app.example/' });
    expect(text(page)).toContain('Check your email');
    expect(text(page)).toContain('A sign in link has been sent to your email address.');
    expect(tags(page, 'a')[0].attrs.href).toBe('https://app.example/');
  });

  it('names the address when known, escaped', () => {
    const page = renderVerifyRequest({ theme: {}, basePath: '/auth', homeUrl: '/', email: '"><img src=x onerror=alert(1)>@example.com' });
    expect(text(page.replace(/<wbr>/g, ''))).toContain('sent to "><img src=x onerror=alert(1)>@example.com.');
    expect(injectedMarkup(page)).toEqual([]);
    expect(tags(page, 'img')).toHaveLength(0);
  });

  it('offers to resend the link to the same address, or to use another one', () => {
    const page = renderVerifyRequest({
      theme: {},
      basePath: '/auth',
      homeUrl: '/',
      email: 'a.long.address@sub.example.org',
      resend: { actionUrl: '/auth/signin/email', csrfToken: 'c1', callbackUrl: '/next' },
      changeUrl: '/auth/signin?email=a.long.address%40sub.example.org',
    });
    const [f] = forms(page);
    expect(f.form.attrs).toMatchObject({ method: 'post', action: '/auth/signin/email' });
    expect(hidden(f.inner)).toEqual({ csrfToken: 'c1', callbackUrl: '/next', email: 'a.long.address@sub.example.org' });
    expect(text(f.inner)).toContain('Resend the link');
    expect(text(page)).toContain('Use a different address');
    // The address may wrap after its @ and dots only.
    expect(page).toContain('a.<wbr>long.<wbr>address@<wbr>sub.<wbr>example.<wbr>org');
    // Without a known address there is nothing to resend.
    expect(forms(renderVerifyRequest({ theme: {}, basePath: '/auth', homeUrl: '/', resend: { actionUrl: '/auth/signin/email', csrfToken: 'c', callbackUrl: '/' } }))).toEqual([]);
  });

  it('drops an unsafe home link', () => {
    expect(tags(renderVerifyRequest({ theme: {}, basePath: '/auth', homeUrl: 'javascript:alert(1)' }), 'a')).toHaveLength(0);
  });
});
