// The locales authchart ships and how their text is loaded: each one on first use, English included (most requests
// render no text: a session check, a sign-in that redirects), so an app that only answers in English never loads the
// rest, and one that only checks sessions loads none.
import { lazy } from '../lazy.js';
import type { Messages } from './en.js';

/** The locales whose every message ships with authchart. */
export const shippedLocales = ['en', 'de', 'fr', 'es', 'ja', 'ar'] as const;
export type ShippedLocale = (typeof shippedLocales)[number];

/**
 * Every English message: the last layer of every translator, and the ids a flow's text may name.
 *
 * @example
 * const en = await englishMessages(); en['signin.title']
 */
export const englishMessages: () => Promise<Messages> = lazy(async () => (await import('./en.js')).en);

const loaders: Record<Exclude<ShippedLocale, 'en'>, () => Promise<Messages>> = {
  de: lazy(async () => (await import('./de.js')).de),
  fr: lazy(async () => (await import('./fr.js')).fr),
  es: lazy(async () => (await import('./es.js')).es),
  ja: lazy(async () => (await import('./ja.js')).ja),
  ar: lazy(async () => (await import('./ar.js')).ar),
};

/**
 * The shipped messages of a locale (by whole tag, then by language), or undefined when authchart has none.
 *
 * @example
 * const de = await shippedMessages('de-AT')
 */
export async function shippedMessages(locale: string): Promise<Messages | undefined> {
  const lower = locale.toLowerCase();
  const tag = (shippedLocales as readonly string[]).includes(lower) ? lower : lower.split('-')[0]!;
  if (tag === 'en') return englishMessages();
  return Object.hasOwn(loaders, tag) ? loaders[tag as keyof typeof loaders]() : undefined;
}
