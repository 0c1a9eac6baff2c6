// Output encoding for the built-in pages: markup is built with the `html` tag, which escapes every
// interpolated value unless it is already `SafeHtml`, and URLs pass `safeUrl` before reaching an attribute.

/** Markup that is already safe to emit as it is (built by `html` or wrapped by `raw`). */
export class SafeHtml {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

const entities: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
  '`': '&#96;',
};

/**
 * Escapes a value for HTML text and for quoted attribute values (both quote styles).
 *
 * @example
 * escapeHtml('<b title="x">') // '&lt;b title=&quot;x&quot;&gt;'
 */
export function escapeHtml(value: unknown): string {
  if (value === null || value === undefined) return '';
  return String(value).replace(/[&<>"'`]/g, (c) => entities[c]);
}

/** Options of {@link safeUrl}. */
export interface SafeUrlOptions {
  /** Also accept `data:image/svg+xml` URLs (for `<img src>`, where SVG cannot run script). */
  allowSvgData?: boolean;
}

// A base no real URL shares, so a relative URL is recognisable after resolution.
const probeBase = 'https://relative.invalid/';

/**
 * Returns `url` when it is http(s) or relative, else `undefined`, so the caller drops the attribute.
 * Resolution uses the same WHATWG parser as browsers, so tricks such as `java\tscript:` or leading
 * control characters are judged the way a browser would follow them.
 *
 * @example
 * safeUrl('/auth/signin') // '/auth/signin'
 * safeUrl('javascript:alert(1)') // undefined
 */
export function safeUrl(url: string | null | undefined, options: SafeUrlOptions = {}): string | undefined {
  if (typeof url !== 'string') return undefined;
  let resolved: URL;
  try {
    resolved = new URL(url, probeBase);
  } catch {
    return undefined;
  }
  if (resolved.protocol === 'http:' || resolved.protocol === 'https:') return url;
  if (options.allowSvgData && resolved.protocol === 'data:' && /^image\/svg\+xml[;,]/i.test(resolved.pathname)) {
    return url;
  }
  return undefined;
}

/** Wraps trusted markup (constants and markup this module produced) so `html` does not escape it. */
export function raw(markup: string): SafeHtml {
  return new SafeHtml(markup);
}

/** A value `html` can interpolate: escaped unless SafeHtml; arrays are joined; nullish and `false` vanish. */
export type HtmlValue = SafeHtml | string | number | boolean | null | undefined | readonly HtmlValue[];

function render(value: HtmlValue): string {
  if (value instanceof SafeHtml) return value.value;
  if (Array.isArray(value)) return value.map(render).join('');
  if (value === null || value === undefined || value === false) return '';
  return escapeHtml(value);
}

/**
 * Template tag that escapes every interpolation. Attribute values must be written inside double quotes.
 *
 * @example
 * html`<p title="${user.name}">${user.name}</p>`
 */
export function html(strings: TemplateStringsArray, ...values: HtmlValue[]): SafeHtml {
  let out = strings[0];
  for (let i = 0; i < values.length; i++) out += render(values[i]) + strings[i + 1];
  return new SafeHtml(out);
}

/**
 * A ` name="value"` attribute, or nothing when the value is absent.
 *
 * @example
 * html`<img${attr('src', safeUrl(logo))} alt="">`
 */
export function attr(name: string, value: string | number | undefined | null): SafeHtml {
  // Names are always constants in our pages; refusing anything else keeps a typo from becoming markup.
  if (!/^[a-z][a-z0-9-]*$/.test(name)) throw new TypeError(`Invalid attribute name: ${name}`);
  if (value === undefined || value === null) return new SafeHtml('');
  return new SafeHtml(` ${name}="${escapeHtml(value)}"`);
}
