// The page frame shared by every built-in page: document head, theme colours as CSS variables, logo.
// No external resources and no inline event handlers: under the pages' Content-Security-Policy the one inline
// <style> (and the sign-in page's script) run by the response's nonce.

import { readableTextOn, safeColor } from '../../core/color.js';
import { attr, html, raw, safeUrl, type SafeHtml } from '../../core/html-escape.js';
import { english } from '../../core/messages/english.js';
import { type Translator } from '../../core/messages/translator.js';

export type { Theme } from '../../core/theme.js';
import type { Theme } from '../../core/theme.js';

/** Input of {@link layout}. */
export interface LayoutParams {
  title: string;
  theme: Theme;
  /** The card's content, built with the `html` tag so every value in it is already escaped. */
  body: SafeHtml;
  /** Page-specific CSS appended to the shared sheet; must only contain validated values. */
  css?: string;
  /** The response's Content-Security-Policy nonce, put on the page's `<style>`. */
  nonce?: string;
  /** The page's language and direction (`<html lang dir>`); English when absent. */
  i18n?: Translator;
}

// `input-border` and `focus` keep 3:1 against the card, text colours 4.5:1 (WCAG AA); `link` is the accent made
// readable as text on the card in each scheme.
type Palette = Record<'bg' | 'surface' | 'text' | 'muted' | 'border' | 'input-border' | 'input' | 'accent' | 'link' | 'focus' | 'notice-bg' | 'notice-border' | 'error-bg' | 'error-text' | 'error-border', string>;

const light: Palette = {
  bg: '#f3f4f6',
  surface: '#ffffff',
  text: '#16181d',
  muted: '#5b6270',
  border: '#d5d9e0',
  'input-border': '#7c8492',
  input: '#ffffff',
  accent: '#2f5fe3',
  link: '#2a55cc',
  focus: '#2f5fe3',
  'notice-bg': '#eef3ff',
  'notice-border': '#c4d3fb',
  'error-bg': '#fdeeee',
  'error-text': '#8b1a1a',
  'error-border': '#f1b8b8',
};

const dark: Palette = {
  bg: '#101215',
  surface: '#1b1e23',
  text: '#eceef1',
  muted: '#a3a9b4',
  border: '#353a44',
  'input-border': '#727a88',
  input: '#14161a',
  accent: '#3d63d6',
  link: '#9bb5ff',
  focus: '#8aa8ff',
  'notice-bg': '#1c2438',
  'notice-border': '#34436b',
  'error-bg': '#3a1c1f',
  'error-text': '#ffc9c9',
  'error-border': '#6e2d32',
};

function vars(palette: Palette, theme: Theme): string {
  const brand = safeColor(theme.brandColor);
  const accent = brand ?? palette.accent;
  const accentText = safeColor(theme.buttonText) ?? readableTextOn(accent);
  const decls = Object.entries(palette).map(([k, v]) => `--${k}:${k === 'accent' ? accent : v}`);
  decls.push(`--accent-text:${accentText}`);
  return decls.join(';');
}

/** The theme-dependent part of the sheet: one palette, or both switched by `prefers-color-scheme`. */
export function themeCss(theme: Theme): string {
  if (theme.colorScheme === 'dark') return `:root{color-scheme:dark;${vars(dark, theme)}}`;
  if (theme.colorScheme === 'light') return `:root{color-scheme:light;${vars(light, theme)}}`;
  return (
    `:root{color-scheme:light dark;${vars(light, theme)}}` +
    `@media (prefers-color-scheme: dark){:root{${vars(dark, theme)}}}`
  );
}

// Deliberately small: system fonts, one card, buttons that work for links and form submits alike. Japanese breaks
// between phrases (`word-break: auto-phrase`; strict line breaking where a browser lacks it), and small links and
// inline buttons keep targets of at least 24 px (WCAG 2.5.8).
const baseCss = `
*,*::before,*::after{box-sizing:border-box}
body{margin:0;background:var(--bg);color:var(--text);font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
html:lang(ja){word-break:auto-phrase;line-break:strict}
@supports not (word-break:auto-phrase){html:lang(ja){overflow-wrap:anywhere}}
.page{min-height:100vh;display:flex;flex-direction:column;align-items:center;justify-content:center;padding:2rem 1rem;gap:1.5rem}
.brand-logo{max-height:3.5rem;max-width:12rem}
.card{width:100%;max-width:23rem;background:var(--surface);border:1px solid var(--border);border-radius:14px;padding:2rem 1.75rem;box-shadow:0 1px 2px rgb(0 0 0/.05),0 8px 24px rgb(0 0 0/.06)}
h1{font-size:1.3rem;line-height:1.3;margin:0 0 .75rem;text-align:center}
p{margin:0 0 1rem}
.muted{color:var(--muted)}
.center{text-align:center}
.center>a{display:inline-flex;align-items:center;min-height:2rem;padding:0 .25rem}
form,.section{display:grid;gap:.75rem;margin:0;min-width:0}
.forms{display:grid;gap:1.75rem}
.field-error{color:var(--error-text);font-size:.85rem;font-weight:600;margin:.35rem 0 0}
input[aria-invalid=true]{border-color:var(--error-text);border-width:2px}
.links{display:flex;flex-direction:column;align-items:center;gap:.5rem;margin:0}
.links a,.links button{display:inline-block;min-height:24px;padding:.25rem .5rem}
.providers{display:grid;gap:.625rem}
label{display:block;font-size:.85rem;font-weight:600;margin-bottom:.3rem}
input{width:100%;font:inherit;color:var(--text);background:var(--input);border:1px solid var(--input-border);border-radius:8px;padding:.6rem .75rem}
input::placeholder{color:var(--muted);font-style:italic;opacity:1}
.button{display:flex;align-items:center;justify-content:center;gap:.6rem;width:100%;min-width:0;text-align:center;overflow-wrap:anywhere;font:inherit;font-weight:600;text-decoration:none;cursor:pointer;border:1px solid transparent;border-radius:8px;padding:.65rem 1rem;background:var(--accent);color:var(--accent-text)}
.button:hover{box-shadow:inset 0 0 0 100vmax rgb(0 0 0/.08)}
.button.provider{background:var(--surface);color:var(--text);border-color:var(--input-border);border-inline-start:5px solid var(--p-brand,var(--input-border))}
.button span{min-width:0}
.button.secondary{background:transparent;color:var(--text);border-color:var(--input-border)}
.button.link,button.link{display:inline-block;width:auto;min-height:24px;padding:.125rem .25rem;border:0;background:none;color:var(--link);font:inherit;font-weight:600;text-decoration:underline;cursor:pointer}
.notice{background:var(--notice-bg);border:1px solid var(--notice-border);border-radius:8px;padding:.7rem .9rem;margin:0 0 1.25rem;font-size:.9rem;display:grid;gap:.6rem}
.notice p{margin:0}
.section-title{font-size:.95rem;margin:0;font-weight:600}
[data-credentials] .section-title{margin-top:.75rem}
.small{font-size:.85rem;margin:0}
.address{overflow-wrap:break-word}
.button img{width:1.25rem;height:1.25rem;object-fit:contain}
a{color:var(--link)}
:focus-visible{outline:2px solid var(--focus);outline-offset:2px}
.divider{display:flex;align-items:center;gap:.75rem;margin:1.25rem 0;color:var(--muted);font-size:.8rem;text-transform:uppercase;letter-spacing:.06em}
.divider::before,.divider::after{content:"";flex:1;border-top:1px solid var(--border)}
.alert{background:var(--error-bg);color:var(--error-text);border:1px solid var(--error-border);border-radius:8px;padding:.7rem .9rem;margin:0 0 1.25rem;font-size:.9rem}
.field-error{color:var(--error-text);font-size:.85rem;margin:.3rem 0 0}
.alert code{font-size:.8rem;opacity:.85}
details{margin-top:1.25rem;font-size:.85rem}
summary{cursor:pointer;color:var(--muted)}
pre{overflow:auto;background:var(--input);border:1px solid var(--border);border-radius:8px;padding:.75rem;font-size:.78rem;white-space:pre-wrap;word-break:break-word}
`.trim();

/**
 * An e-mail address (or any long token) that may wrap after its `@` and dots, never in the middle of a word.
 *
 * @example
 * html`Sent to ${breakable('ada.lovelace@analytical.example')}`
 */
export function breakable(text: string): SafeHtml {
  const parts = text.split(/(?<=[@.])/);
  return html`<span class="address">${parts.map((part, i) => (i ? html`<wbr>${part}` : part))}</span>`;
}

/**
 * Wraps a page body in the shared document: head, theme CSS, optional logo and the centred card.
 *
 * @example
 * layout({ title: 'Sign out', theme: {}, body: html`<h1>Sign out</h1>` })
 */
export function layout({ title, theme, body, css = '', nonce, i18n = english }: LayoutParams): string {
  const logo = safeUrl(theme.logo, { allowSvgData: true });
  // `<` is the only character that could end the <style> element early; escape it for CSS.
  const sheet = `${themeCss(theme)}\n${baseCss}\n${css}`.replace(/</g, '\\3c ');
  const scheme = theme.colorScheme === 'dark' || theme.colorScheme === 'light' ? theme.colorScheme : 'light dark';
  return html`<!doctype html>
<html lang="${i18n.locale}" dir="${i18n.dir}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="${scheme}">
<meta name="referrer" content="same-origin">
<meta name="robots" content="noindex">
<title>${title}</title>
<style${attr('nonce', nonce)}>${raw(sheet)}</style>
</head>
<body>
<main class="page">
${logo ? html`<img class="brand-logo"${attr('src', logo)} alt="">` : ''}
<div class="card">
${body}
</div>
</main>
</body>
</html>
`.value;
}
