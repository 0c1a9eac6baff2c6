// The demo's own look, shared by its pages (home, protected, mailbox, the demo IdP's): system fonts, light and dark
// like the built-in auth pages, WCAG AA colours, and a favicon, so nothing is fetched from outside the machine.

/** The demo's stylesheet: CSS variables per colour scheme, then the few components its pages use. */
export const demoCss = `
:root{color-scheme:light dark;--bg:#f3f4f6;--surface:#fff;--text:#16181d;--muted:#5b6270;--border:#d5d9e0;--input-border:#7c8492;--accent:#4338ca;--link:#3730a3;--code:#eef0f3;--focus:#4338ca}
@media (prefers-color-scheme: dark){:root{--bg:#101215;--surface:#1b1e23;--text:#eceef1;--muted:#a3a9b4;--border:#353a44;--input-border:#727a88;--accent:#4f46e5;--link:#a5b4fc;--code:#262a31;--focus:#a5b4fc}}
*,*::before,*::after{box-sizing:border-box}
body{font:16px/1.55 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;max-width:44rem;margin:0 auto;padding:1.5rem 1rem 3rem;color:var(--text);background:var(--bg)}
h1{font-size:1.6rem;line-height:1.25;margin:1.25rem 0 .75rem}
h2{font-size:1.1rem;margin:1.25rem 0 .5rem}
a{color:var(--link)}
a.button,button{display:inline-block;padding:.55rem 1rem;border-radius:.5rem;background:var(--accent);color:#fff;text-decoration:none;border:1px solid transparent;font:inherit;font-weight:600;cursor:pointer}
a.button.secondary,button.secondary{background:transparent;color:var(--text);border-color:var(--input-border)}
:focus-visible{outline:2px solid var(--focus);outline-offset:2px}
input{font:inherit;color:var(--text);background:var(--surface);border:1px solid var(--input-border);border-radius:.5rem;padding:.45rem .6rem;max-width:100%}
.card{background:var(--surface);border:1px solid var(--border);border-radius:.75rem;padding:1rem 1.25rem;margin:1rem 0;overflow-wrap:break-word}
.muted{color:var(--muted)}
.actions{display:flex;flex-wrap:wrap;gap:.5rem;align-items:center}
code{background:var(--code);padding:.1rem .3rem;border-radius:.25rem;overflow-wrap:anywhere}
nav{display:flex;flex-wrap:wrap;gap:.25rem 1rem}
ul{padding-left:1.25rem}
pre{white-space:pre-wrap;overflow-wrap:anywhere;background:var(--code);padding:.75rem;border-radius:.5rem}
`.trim();

/** A small key in the demo's colours, as SVG: served as /favicon.ico (Chromium asks for it on every page). */
export const faviconSvg = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="7" fill="#4338ca"/><circle cx="12" cy="16" r="5" fill="none" stroke="#fff" stroke-width="3"/><path d="M17 16h10m-3 0v4m-4-4v3" stroke="#fff" stroke-width="3" stroke-linecap="round"/></svg>`;

/** `<link rel=icon>` for the demo's own pages. */
export const faviconLink = '<link rel="icon" href="/favicon.ico" type="image/svg+xml">';

/** The favicon response (h3 handlers return it as is). */
export function faviconResponse(): Response {
  return new Response(faviconSvg, { headers: { 'content-type': 'image/svg+xml', 'cache-control': 'public, max-age=86400' } });
}

/**
 * A date a person reads: "today at 21:40", "tomorrow at 09:00", else "Mon 23 Dec 2026 at 21:40" (the server's time
 * zone, which is the demo user's own machine).
 *
 * @example humanDate(new Date(), new Date()) // "today at 21:40"
 */
export function humanDate(date: Date, now = new Date()): string {
  const time = date.toLocaleTimeString('en-GB', { hour: '2-digit', minute: '2-digit' });
  const day = (d: Date) => Math.floor((d.getTime() - d.getTimezoneOffset() * 60_000) / 86_400_000);
  const diff = day(date) - day(now);
  if (diff === 0) return `today at ${time}`;
  if (diff === 1) return `tomorrow at ${time}`;
  if (diff === -1) return `yesterday at ${time}`;
  return `${date.toLocaleDateString('en-GB', { weekday: 'short', day: 'numeric', month: 'short', year: 'numeric' })} at ${time}`;
}
