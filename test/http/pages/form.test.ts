import { describe, expect, it } from 'vitest';
import { renderFormPage } from '../../../src/http/pages/form.js';
import { forms, hidden, injectedMarkup, tags, text } from './dom.js';

const page = (overrides: Partial<Parameters<typeof renderFormPage>[0]['page']> = {}, actionUrl = 'https://app.example/auth/callback/code') =>
  renderFormPage({
    theme: {},
    actionUrl,
    hiddenFields: { csrfToken: 'tok-1' },
    page: { title: 'Enter your code', fields: [{ name: 'code', label: 'Code', inputmode: 'numeric', autocomplete: 'one-time-code', pattern: '[0-9]{6}', maxlength: 6 }], ...overrides },
    nonce: 'n0nce',
  });

describe('renderFormPage', () => {
  it('posts the described inputs and the CSRF token to the callback; the first input has focus and all are required by default', () => {
    const [f] = forms(page());
    expect(f.form.attrs).toMatchObject({ method: 'post', action: 'https://app.example/auth/callback/code' });
    expect(hidden(f.inner)).toEqual({ csrfToken: 'tok-1' });
    const input = tags(f.inner, 'input').find((i) => i.attrs.name === 'code')!;
    expect(input.attrs).toMatchObject({ type: 'text', inputmode: 'numeric', autocomplete: 'one-time-code', pattern: '[0-9]{6}', maxlength: '6', required: '', autofocus: '' });
    expect(text(page())).toContain('Continue');
  });

  it('escapes every value a flow gives it', () => {
    const evil = '"><img src=x onerror=alert(1)>';
    const html = page({ title: evil, message: evil, error: evil, submit: evil, fields: [{ name: evil, label: evil, type: 'password', required: false }] });
    expect(injectedMarkup(html)).toEqual([]);
    expect(tags(html, 'img')).toHaveLength(0);
    expect(text(html)).toContain(evil);
    const input = tags(html, 'input').find((i) => i.attrs.type === 'password')!;
    expect(input.attrs.name).toBe(evil);
    expect(input.attrs.required).toBeUndefined();
  });

  it('shows an error as an alert, and no form when the action URL is unsafe', () => {
    expect(page({ error: 'That code did not match.' })).toMatch(/role="alert">That code did not match\.</);
    expect(forms(page({}, 'javascript:alert(1)'))).toEqual([]);
  });
});
