// The text a request's pages and mails are written in: chosen once per request (the app's `locale` callback, else
// `Accept-Language`, else the default) and shared by everything that request renders.
import type { RequestContext } from '../request-context.js';
import { englishMessages, shippedMessages } from './catalog.js';
import { negotiateLocale } from './negotiate.js';
import { Translator } from './translator.js';

const chosen = new WeakMap<RequestContext, Promise<Translator>>();

/**
 * The translator of a request (made on first use).
 *
 * @example
 * const i18n = await messagesFor(req); i18n.t('signin.title')
 */
export function messagesFor(req: RequestContext): Promise<Translator> {
  let t = chosen.get(req);
  if (!t) chosen.set(req, (t = choose(req)));
  return t;
}

async function choose(req: RequestContext): Promise<Translator> {
  const { i18n, logger } = req.config;
  let named: string | null | undefined;
  if (i18n.locale) {
    try {
      named = await i18n.locale(req.request);
    } catch (err) {
      // A page in the default language beats no page: the callback's failure is the app's to see in its logs.
      logger.error(err instanceof Error ? err : new Error(String(err)));
    }
  }
  const locale = negotiateLocale({
    chosen: typeof named === 'string' ? named : undefined,
    acceptLanguage: req.request.headers.get('accept-language'),
    available: i18n.available,
    fallback: i18n.defaultLocale,
  });
  return translatorFor(locale, i18n.messages);
}

/**
 * The translator of one locale: the app's messages for it (and its language), then the shipped ones, then English.
 *
 * @example
 * const ja = await translatorFor('ja', {})
 */
export async function translatorFor(locale: string, messages: RequestContext['config']['i18n']['messages']): Promise<Translator> {
  const language = locale.split('-')[0]!;
  const own = (tag: string) => Object.entries(messages).find(([k]) => k.toLowerCase() === tag.toLowerCase())?.[1];
  return new Translator(locale, [own(locale), language !== locale ? own(language) : undefined, await shippedMessages(locale), await englishMessages()]);
}
