import { describe, expect, it } from 'vitest';
import { errorPageStatus, renderError, type ErrorPageParams } from '../../../src/http/pages/index.js';
import { injectedMarkup, tags, text } from './dom.js';

const base: ErrorPageParams = { error: 'Configuration', theme: {}, basePath: '/auth', signinUrl: '/auth/signin', homeUrl: 'https://app.example/' };
const render = (p: Partial<ErrorPageParams>) => renderError({ ...base, ...p });

describe('renderError', () => {
  it.each([
    ['Configuration', 500],
    ['AccessDenied', 403],
    ['Verification', 403],
    ['InvalidRequest', 400],
    ['WebAuthnVerificationError', 200],
    ['OAuthAccountNotLinked', 200],
    ['Default', 200],
    ['<script>', 200],
    ['', 200],
  ])('%j is served with %i', (error, status) => {
    expect(render({ error }).status).toBe(status);
    expect(errorPageStatus(error)).toBe(status);
  });

  it('explains a configuration error and links home', () => {
    const { html } = render({ error: 'Configuration' });
    expect(tags(html, 'h1')).toHaveLength(1);
    expect(text(html)).toContain('Server error');
    expect(text(html)).toContain('problem with the server configuration');
    expect(tags(html, 'a')[0].attrs.href).toBe('https://app.example/');
    expect(text(html)).toContain('Back to app.example');
  });

  it('tells a client its request was not valid, without blaming the server', () => {
    const { html } = render({ error: 'InvalidRequest' });
    expect(text(html)).toContain('Request not valid');
    expect(text(html)).not.toMatch(/configuration|server/i);
  });

  it('says a verification link is no longer valid and links to sign in', () => {
    const { html } = render({ error: 'Verification' });
    expect(text(html)).toMatch(/no longer valid.*used already.*expired/);
    const link = tags(html, 'a')[0];
    expect(link.attrs.href).toBe('/auth/signin');
    expect(text(html)).toContain('Sign in');
  });

  it('denies access with a friendly message', () => {
    expect(text(render({ error: 'AccessDenied' }).html)).toContain('You do not have permission to sign in.');
  });

  it('falls back for unknown types without echoing raw input', () => {
    const known = text(render({ error: 'SomeNewError' }).html);
    expect(known).toContain('Something went wrong');
    // Words and the next step, the type only as a support reference in small print (issue 46).
    expect(known).toContain('Try signing in again.');
    expect(known).not.toContain('Error code');
    expect(known).toContain('Reference for support: SomeNewError');
    expect(render({ error: 'SomeNewError' }).html).toMatch(/<a class="button" href="[^"]*signin[^"]*">Sign in<\/a>/);
    // "Default" is no reference at all.
    expect(text(render({ error: 'Default' }).html)).not.toMatch(/Default|Error code|Reference/);
    // A locked factor check says what happened and how to get back in.
    const locked = text(render({ error: 'SecondFactorFailed' }).html);
    expect(locked).toContain('Too many wrong codes');
    expect(locked).toContain('use one of your backup codes, or use a passkey');
    expect(locked).not.toContain('SecondFactorFailed');
    // A check that waited too long says so, not "too many wrong codes", and offers signing in again.
    const late = render({ error: 'SecondFactorExpired' });
    expect(text(late.html)).toContain('The sign-in timed out');
    expect(text(late.html)).toContain('No code was wrong');
    expect(text(late.html)).not.toContain('Too many wrong codes');
    expect(late.html).toMatch(/<a class="button" href="[^"]*signin[^"]*">Sign in<\/a>/);
    const hostile = render({ error: '<img src=x onerror=alert(1)>' }).html;
    expect(text(hostile)).toContain('Something went wrong');
    expect(hostile).not.toContain('onerror');
    expect(injectedMarkup(hostile)).toEqual([]);
    expect(text(render({ error: 'Your account is locked, call 555-0100' }).html)).not.toContain('555-0100');
    expect(text(render({ error: '__proto__' }).html)).toContain('Something went wrong');
  });

  it('shows an escaped debug trace only when given', () => {
    expect(render({ error: 'Configuration' }).html).not.toContain('<details>');
    const { html } = render({ error: 'Configuration', trace: 'idle -> failed\n</pre><script>alert(1)</script>' });
    expect(html).toMatch(/<details><summary>[^<]+<\/summary><pre>idle -&gt; failed\n&lt;\/pre&gt;&lt;script&gt;/);
    expect(injectedMarkup(html)).toEqual([]);
  });

  it('drops unsafe link targets', () => {
    const { html } = render({ error: 'Verification', signinUrl: 'javascript:alert(1)', homeUrl: 'javascript:alert(2)' });
    expect(tags(html, 'a')).toHaveLength(0);
    expect(injectedMarkup(html)).toEqual([]);
    expect(tags(render({ error: 'Verification', signinUrl: 'javascript:alert(1)' }).html, 'a')[0].attrs.href).toBe('https://app.example/');
  });

  it('honours the theme', () => {
    expect(render({ theme: { colorScheme: 'dark' } }).html).toContain(':root{color-scheme:dark;');
  });
});
