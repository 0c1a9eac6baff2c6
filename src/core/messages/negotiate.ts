// Which of the locales an app has a browser gets: its `Accept-Language` list, read in preference order and matched
// by whole tag first, then by language (`de-AT` finds `de`; `pt` finds `pt-BR` when that is all there is).

// A header is the client's to make: read a bounded part of it, never a list an attacker can make long.
const MAX_HEADER = 512;
const MAX_ENTRIES = 16;
/** A BCP 47-shaped locale tag (`de`, `pt-BR`, `zh-Hant-TW`): letters, then dash-separated subtags. */
export const localeTagPattern = /^[A-Za-z]{1,8}(?:-[A-Za-z0-9]{1,8})*$/;

/** The primary language of a tag, lower-cased (`pt-BR` → `pt`). */
export function languageOf(tag: string): string {
  return tag.split('-')[0]!.toLowerCase();
}

/**
 * The available locale that best serves one requested tag, or undefined: the same tag (any case), else the first
 * available one of the same language.
 *
 * @example
 * matchLocale('de-AT', ['en', 'de']) // 'de'
 */
export function matchLocale(requested: string, available: readonly string[]): string | undefined {
  if (!localeTagPattern.test(requested)) return undefined;
  const lower = requested.toLowerCase();
  const exact = available.find((a) => a.toLowerCase() === lower);
  if (exact) return exact;
  const language = languageOf(requested);
  return available.find((a) => languageOf(a) === language);
}

/**
 * The tags of an `Accept-Language` header, most preferred first (ties keep their order; `q=0` and `*` dropped).
 *
 * @example
 * acceptedLanguages('fr-CH, fr;q=0.9, en;q=0.8') // ['fr-CH', 'fr', 'en']
 */
export function acceptedLanguages(header: string | null | undefined): string[] {
  if (!header) return [];
  const entries: { tag: string; q: number; at: number }[] = [];
  for (const part of header.slice(0, MAX_HEADER).split(',').slice(0, MAX_ENTRIES)) {
    const [rawTag, ...params] = part.trim().split(';');
    const tag = rawTag!.trim();
    if (!tag || tag === '*' || !localeTagPattern.test(tag)) continue;
    let q = 1;
    for (const p of params) {
      if (!/^\s*q\s*=/.test(p)) continue;
      const m = /^\s*q\s*=\s*([01](?:\.\d{0,3})?)\s*$/.exec(p);
      q = m ? Number(m[1]) : 0; // a weight that is not one is no preference
    }
    if (q > 0 && q <= 1) entries.push({ tag, q, at: entries.length });
  }
  return entries.sort((a, b) => b.q - a.q || a.at - b.at).map((e) => e.tag);
}

/**
 * The locale for a request: what the app's callback named (when available), else the best match of the
 * `Accept-Language` list, else the default.
 *
 * @example
 * negotiateLocale({ chosen: undefined, acceptLanguage: 'ja,en;q=0.5', available: ['en', 'ja'], fallback: 'en' }) // 'ja'
 */
export function negotiateLocale(params: { chosen?: string | null; acceptLanguage?: string | null; available: readonly string[]; fallback: string }): string {
  if (params.chosen) {
    const m = matchLocale(params.chosen, params.available);
    if (m) return m;
  }
  for (const tag of acceptedLanguages(params.acceptLanguage)) {
    const m = matchLocale(tag, params.available);
    if (m) return m;
  }
  return params.fallback;
}
