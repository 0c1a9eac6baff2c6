// The configuration's languages, checked once: which locales exist (shipped ones and the app's own), the default,
// the app's overrides, and its callback.
import { UnsupportedStrategy } from '../errors.js';
import type { Awaitable } from '../types.js';
import { shippedLocales } from './catalog.js';
import type { Messages } from './en.js';
import { localeTagPattern, matchLocale } from './negotiate.js';

export interface I18nConfig {
  /** Every locale a page can be in: the shipped ones, then the app's own. */
  available: readonly string[];
  defaultLocale: string;
  messages: Readonly<Record<string, Partial<Messages>>>;
  locale?: (request: Request) => Awaitable<string | null | undefined>;
}

/** The resolved languages of a configuration. Throws `UnsupportedStrategy` for a malformed tag. */
export function resolveI18n(config: { locale?: I18nConfig['locale']; messages?: I18nConfig['messages']; defaultLocale?: string }): I18nConfig {
  const messages = config.messages ?? {};
  for (const tag of Object.keys(messages)) {
    if (!localeTagPattern.test(tag)) throw new UnsupportedStrategy(`\`messages\` has a key that is not a locale tag: "${tag}".`);
  }
  if (config.locale !== undefined && typeof config.locale !== 'function') throw new UnsupportedStrategy('`locale` must be a function of the request.');
  const own = Object.keys(messages).filter((tag) => !(shippedLocales as readonly string[]).includes(tag.toLowerCase()));
  const available = [...shippedLocales, ...own];
  const requested = config.defaultLocale ?? 'en';
  const defaultLocale = matchLocale(requested, available);
  if (!defaultLocale) throw new UnsupportedStrategy(`\`defaultLocale\` "${requested}" has no messages: ship it in \`messages\` or pick one of ${available.join(', ')}.`);
  return { available, defaultLocale, messages, locale: config.locale };
}
