import { describe, expect, it } from 'vitest';
import { renderVerifyRequest } from '../../../src/http/pages/index.js';
import { injectedMarkup, tags, text } from './dom.js';

describe('renderVerifyRequest', () => {
  it('tells the user to check their email and links home', () => {
    const page = renderVerifyRequest({ theme: {}, basePath: '/auth', homeUrl: 'https://app.example/' });
    expect(text(page)).toContain('Check your email');
    expect(text(page)).toContain('A sign in link has been sent to your email address.');
    expect(tags(page, 'a')[0].attrs.href).toBe('https://app.example/');
  });

  it('names the address when known, escaped', () => {
    const page = renderVerifyRequest({ theme: {}, basePath: '/auth', homeUrl: '/', email: '"><img src=x onerror=alert(1)>@example.com' });
    expect(text(page)).toContain('sent to "><img src=x onerror=alert(1)>@example.com.');
    expect(injectedMarkup(page)).toEqual([]);
    expect(tags(page, 'img')).toHaveLength(0);
  });

  it('drops an unsafe home link', () => {
    expect(tags(renderVerifyRequest({ theme: {}, basePath: '/auth', homeUrl: 'javascript:alert(1)' }), 'a')).toHaveLength(0);
  });
});
