import { describe, expect, it } from 'vitest';
import { html, layout, type Theme } from '../../../src/http/pages/index.js';
import { injectedMarkup, tags } from './dom.js';

const page = (theme: Theme, title = 'T') => layout({ title, theme, body: html`<p>body</p>` });
const style = (doc: string) => doc.match(/<style>([\s\S]*?)<\/style>/)![1];
const root = (css: string) => css.match(/^:root\{([^}]*)\}/)![1];

describe('layout', () => {
  it('produces a complete, self-contained document', () => {
    const doc = page({});
    expect(doc.startsWith('<!doctype html>')).toBe(true);
    expect(tags(doc, 'html')[0].attrs.lang).toBe('en');
    expect(tags(doc, 'meta').find((m) => m.attrs.name === 'viewport')?.attrs.content).toContain('width=device-width');
    expect(doc).toContain('<p>body</p>');
    // No external resources: no stylesheet links, scripts, fonts or imports.
    expect(tags(doc, 'link')).toHaveLength(0);
    expect(tags(doc, 'script')).toHaveLength(0);
    expect(style(doc)).not.toMatch(/@import|url\(|@font-face/);
    expect(injectedMarkup(doc)).toEqual([]);
  });

  it('auto switches palettes with prefers-color-scheme', () => {
    for (const theme of [{}, { colorScheme: 'auto' as const }]) {
      const css = style(page(theme));
      expect(root(css)).toContain('color-scheme:light dark');
      expect(root(css)).toContain('--bg:#f3f4f6');
      expect(css).toMatch(/@media \(prefers-color-scheme: dark\)\{:root\{[^}]*--bg:#101215/);
      expect(tags(page(theme), 'meta').find((m) => m.attrs.name === 'color-scheme')?.attrs.content).toBe('light dark');
    }
  });

  it('dark uses only the dark palette', () => {
    const css = style(page({ colorScheme: 'dark' }));
    expect(root(css)).toContain('color-scheme:dark;');
    expect(root(css)).toContain('--bg:#101215');
    expect(css).not.toContain('prefers-color-scheme');
    expect(css).not.toContain('#f3f4f6');
  });

  it('light uses only the light palette', () => {
    const css = style(page({ colorScheme: 'light' }));
    expect(root(css)).toContain('color-scheme:light;');
    expect(root(css)).toContain('--bg:#f3f4f6');
    expect(css).not.toContain('prefers-color-scheme');
    expect(css).not.toContain('#101215');
  });

  it('applies a valid brand colour and button text, with readable text by default', () => {
    expect(root(style(page({ brandColor: '#7c3aed', buttonText: 'rgb(250, 250, 250)' })))).toMatch(/--accent:#7c3aed;.*--accent-text:rgb\(250, 250, 250\)/);
    expect(root(style(page({ brandColor: '#ffd700' })))).toContain('--accent-text:#111418');
    expect(root(style(page({ brandColor: 'navy' })))).toContain('--accent-text:#ffffff');
  });

  it('ignores invalid colours', () => {
    const css = style(page({ brandColor: 'red;background:url(x)', buttonText: '</style><script>alert(1)</script>' }));
    expect(root(css)).toContain('--accent:#2f5fe3');
    expect(css).not.toContain('url(x)');
    expect(css).not.toContain('script');
  });

  it('shows a safe logo and drops an unsafe one', () => {
    expect(tags(page({ logo: '/logo.svg' }), 'img')[0].attrs.src).toBe('/logo.svg');
    expect(tags(page({ logo: 'data:image/svg+xml,%3Csvg%2F%3E' }), 'img')[0].attrs.src).toBe('data:image/svg+xml,%3Csvg%2F%3E');
    expect(tags(page({ logo: 'javascript:alert(1)' }), 'img')).toHaveLength(0);
    expect(tags(page({ logo: 'data:text/html,<script>alert(1)</script>' }), 'img')).toHaveLength(0);
  });

  it('escapes the title and cannot be broken out of its <style>', () => {
    const doc = page({}, '</title><script>alert(1)</script>');
    expect(doc).toContain('<title>&lt;/title&gt;&lt;script&gt;alert(1)&lt;/script&gt;</title>');
    const extra = layout({ title: 't', theme: {}, body: html``, css: '.a{}</style><script>alert(1)</script>' });
    expect(injectedMarkup(extra)).toEqual([]);
    expect(extra.match(/<\/style>/g)).toHaveLength(1);
  });
});
