// A session's device as a person reads it ("Chrome on Linux"), from its stored user agent. The parser
// (ua-parser-js 1.x, MIT) loads on first use: only the account page names devices.
import { lazy } from '../../core/lazy.js';
import type { Translator } from '../../core/messages/translator.js';

const loadParser = lazy(() => import('ua-parser-js'));

/** The longest browser or system name shown: a forged user agent cannot stretch the page. */
const MAX = 40;

const short = (name: string | undefined) => (name ? [...name.trim()].slice(0, MAX).join('') : undefined);

/**
 * "Chrome on Linux" in the reader's language; the browser alone, or the system alone, when only one is known;
 * "Unknown device" when neither is. Never the raw user agent.
 *
 * @example
 * await deviceName('Mozilla/5.0 (X11; Linux x86_64) … Chrome/120.0.0.0 Safari/537.36', english) // 'Chrome on Linux'
 */
export async function deviceName(userAgent: string | null | undefined, i18n: Translator): Promise<string> {
  if (!userAgent) return i18n.t('account.unknownDevice');
  const { UAParser } = await loadParser();
  const result = new UAParser(userAgent).getResult();
  const browser = short(result.browser.name);
  const os = short(result.os.name);
  if (browser && os) return i18n.t('manage.deviceName', { browser, os });
  return browser ?? os ?? i18n.t('account.unknownDevice');
}
