// Text for one locale: message ids to sentences with their values put in, the page direction, dates through Intl.
// Missing ids fall back along the chain (the app's overrides, the shipped locale, its language, English), so a
// page never shows a raw id.
import type { MessageId, Messages } from './en.js';
import { languageOf } from './negotiate.js';

/** Values put into a message's `{name}` slots. */
export type MessageValues = Readonly<Record<string, string | number>>;

/** One piece of a message: text as written, or the name of a slot. */
export type MessagePart = string | { slot: string };

// Languages written right to left (by primary language subtag).
const rightToLeft = new Set(['ar', 'he', 'fa', 'ur', 'ps', 'yi', 'dv', 'ckb', 'sd', 'ug']);

/** The text direction of a locale's pages. */
export function directionOf(locale: string): 'ltr' | 'rtl' {
  return rightToLeft.has(languageOf(locale)) ? 'rtl' : 'ltr';
}

/** Splits a message into its text and its `{name}` slots. */
export function messageParts(text: string): MessagePart[] {
  const parts: MessagePart[] = [];
  let last = 0;
  for (const m of text.matchAll(/\{([A-Za-z][A-Za-z0-9_]*)\}/g)) {
    if (m.index > last) parts.push(text.slice(last, m.index));
    parts.push({ slot: m[1]! });
    last = m.index + m[0].length;
  }
  if (last < text.length) parts.push(text.slice(last));
  return parts;
}

/** The text of one locale. */
export class Translator {
  readonly dir: 'ltr' | 'rtl';
  readonly #layers: readonly Partial<Messages>[];
  #dates?: Intl.DateTimeFormat;
  #times?: Intl.DateTimeFormat;

  /**
   * @param locale The BCP 47 tag pages declare (`<html lang>`), and dates are formatted in.
   * @param layers Messages to read, first wins; the last is English, every message of it (`englishMessages()`), so
   *   no id is ever shown raw. English is not imported here: most requests render no text, and it is the largest
   *   module a start would otherwise load.
   */
  constructor(readonly locale: string, layers: readonly (Partial<Messages> | undefined)[]) {
    this.dir = directionOf(locale);
    this.#layers = layers.filter((l): l is Partial<Messages> => l !== undefined);
  }

  /** The raw message of an id (no values put in). */
  text(id: MessageId): string {
    for (const layer of this.#layers) {
      const text = layer[id];
      if (typeof text === 'string') return text;
    }
    return id;
  }

  /**
   * The message with its values put in (an unknown slot stays as written).
   *
   * @example
   * i18n.t('signin.with', { provider: 'GitHub' }) // 'Sign in with GitHub'
   */
  t(id: MessageId, values: MessageValues = {}): string {
    return messageParts(this.text(id))
      .map((p) => (typeof p === 'string' ? p : Object.hasOwn(values, p.slot) ? String(values[p.slot]) : `{${p.slot}}`))
      .join('');
  }

  /** A day, in this locale (`25 Nov 2026`, `2026/11/25`, ...). */
  date(value: Date | string): string {
    const d = typeof value === 'string' ? new Date(value) : value;
    if (Number.isNaN(d.getTime())) return String(value);
    this.#dates ??= new Intl.DateTimeFormat(this.locale, { dateStyle: 'medium', timeZone: 'UTC' });
    return this.#dates.format(d);
  }

  /** A moment, in this locale and in UTC, named as such (mails: the reader's time zone is unknown). */
  dateTime(value: Date): string {
    this.#times ??= new Intl.DateTimeFormat(this.locale, { dateStyle: 'long', timeStyle: 'short', timeZone: 'UTC' });
    return `${this.#times.format(value)} UTC`;
  }
}
