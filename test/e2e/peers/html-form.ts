// Reads HTML forms with regular expressions, enough to drive simple server-rendered pages (the OP's dev
// interactions, form_post responses, our own built-in pages) without a DOM.

/** A form found in a page: its target, method and the named inputs with their values. */
export interface HtmlForm {
  /** As written in the page (may be relative); resolve it against the page URL. */
  action: string;
  method: 'GET' | 'POST';
  fields: Record<string, string>;
}

const NAMED_ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: '\u00a0' };

/** Decodes the HTML character references found in attribute values (`&amp;`, `&#39;`, `&#x2F;`, ...). */
export function decodeHtmlEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, ref: string) => {
    if (ref[0] === '#') {
      const code = ref[1] === 'x' || ref[1] === 'X' ? parseInt(ref.slice(2), 16) : parseInt(ref.slice(1), 10);
      return Number.isFinite(code) ? String.fromCodePoint(code) : whole;
    }
    return NAMED_ENTITIES[ref.toLowerCase()] ?? whole;
  });
}

function attributes(tag: string): Record<string, string> {
  const out: Record<string, string> = {};
  // name="v", name='v', name=v, or a bare boolean attribute.
  for (const m of tag.matchAll(/([^\s"'<>/=]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'=<>`]+)))?/g)) {
    const name = m[1].toLowerCase();
    if (!(name in out)) out[name] = decodeHtmlEntities(m[2] ?? m[3] ?? m[4] ?? '');
  }
  return out;
}

/**
 * Every `<form>` in a page, with its `<input>` and `<button>` name/value pairs (unchecked boxes included; keep
 * the pages simple).
 *
 * @example const [form] = readForms(await res.text()); await client.post(new URL(form.action, res.requestUrl), form.fields);
 */
export function readForms(html: string): HtmlForm[] {
  const forms: HtmlForm[] = [];
  for (const m of html.matchAll(/<form\b([^>]*)>([\s\S]*?)<\/form>/gi)) {
    const attrs = attributes(m[1]);
    const fields: Record<string, string> = {};
    for (const input of m[2].matchAll(/<(?:input|button)\b([^>]*)>/gi)) {
      const field = attributes(input[1]);
      if (field.name !== undefined && field.name !== '') fields[field.name] = field.value ?? '';
    }
    forms.push({ action: attrs.action ?? '', method: attrs.method?.toUpperCase() === 'POST' ? 'POST' : 'GET', fields });
  }
  return forms;
}

/** The `href` of every link in a page, entities decoded. */
export function readLinks(html: string): string[] {
  return [...html.matchAll(/<a\b([^>]*)>/gi)].map((m) => attributes(m[1]).href).filter((href): href is string => !!href);
}
