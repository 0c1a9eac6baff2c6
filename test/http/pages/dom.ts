// A DOM-free reader for the pages' markup: finds start tags and decodes their attributes, enough to
// assert on forms, inputs and links without a browser.

export interface Tag {
  name: string;
  attrs: Record<string, string>;
  /** The start tag as written. */
  source: string;
}

const decode = (s: string) =>
  s.replace(/&(#\d+|#x[0-9a-f]+|amp|lt|gt|quot);/gi, (_, e: string) => {
    if (e[0] === '#') return String.fromCodePoint(e[1] === 'x' || e[1] === 'X' ? parseInt(e.slice(2), 16) : parseInt(e.slice(1), 10));
    return { amp: '&', lt: '<', gt: '>', quot: '"' }[e.toLowerCase()] as string;
  });

/** Every start tag in document order, optionally only those named `name`. */
export function tags(html: string, name?: string): Tag[] {
  const out: Tag[] = [];
  for (const m of html.matchAll(/<([a-zA-Z][a-zA-Z0-9-]*)((?:\s+[^\s"'>\/=]+(?:\s*=\s*(?:"[^"]*"|'[^']*'|[^\s"'=<>`]+))?)*)\s*\/?>/g)) {
    const attrs: Record<string, string> = {};
    for (const a of m[2].matchAll(/([^\s"'>\/=]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'=<>`]+)))?/g)) {
      attrs[a[1].toLowerCase()] = decode(a[2] ?? a[3] ?? a[4] ?? '');
    }
    const tag = { name: m[1].toLowerCase(), attrs, source: m[0] };
    if (!name || tag.name === name) out.push(tag);
  }
  return out;
}

/** The visible text of `html`: tags removed (inline ones without a gap), entities decoded. */
export function text(html: string): string {
  return decode(
    html
      .replace(/<(style|script|title)\b[\s\S]*?<\/\1>/g, ' ')
      .replace(/<\/?(span|strong|code|em|b|i|a)\b[^>]*>/g, '')
      .replace(/<[^>]*>/g, ' '),
  )
    .replace(/\s+/g, ' ')
    .trim();
}

/** The markup between each `<form ...>` and its `</form>`, with the form's own tag. */
export function forms(html: string): { form: Tag; inner: string }[] {
  return [...html.matchAll(/(<form\b[^>]*>)([\s\S]*?)<\/form>/g)].map((m) => ({ form: tags(m[1])[0], inner: m[2] }));
}

/** Hidden inputs of a fragment as name → value. */
export function hidden(fragment: string): Record<string, string> {
  return Object.fromEntries(tags(fragment, 'input').filter((t) => t.attrs.type === 'hidden').map((t) => [t.attrs.name, t.attrs.value]));
}

/**
 * Checks that a page carries no markup an attacker could have injected: no event-handler attributes,
 * no script other than the allowed sources, no script URLs in any attribute.
 */
export function injectedMarkup(html: string, allowedScripts: string[] = []): string[] {
  const problems: string[] = [];
  for (const t of tags(html)) {
    for (const [k, v] of Object.entries(t.attrs)) {
      if (k.startsWith('on')) problems.push(`event handler ${k} on <${t.name}>`);
      if (/^\s*(javascript|vbscript|data:text)/i.test(v)) problems.push(`script URL in ${k} on <${t.name}>`);
      if (k === 'style') problems.push(`inline style on <${t.name}>`);
    }
    if (t.name === 'script' && !allowedScripts.includes(t.attrs.src)) problems.push(`unexpected script ${t.source}`);
    if (['iframe', 'object', 'embed', 'svg', 'math', 'base', 'link'].includes(t.name)) problems.push(`unexpected <${t.name}>`);
  }
  return problems;
}
