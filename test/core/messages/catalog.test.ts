// Every shipped locale says everything English says: the same ids, the same `{slots}` in each message, no empty
// text; and an app's own locale or overrides fill in over the shipped text, never leaving a raw id.
import { describe, expect, it } from 'vitest';
import { shippedLocales, shippedMessages } from '../../../src/core/messages/catalog.js';
import { en, type MessageId } from '../../../src/core/messages/en.js';
import { resolveI18n } from '../../../src/core/messages/config.js';
import { translatorFor } from '../../../src/core/messages/request.js';
import { directionOf, messageParts } from '../../../src/core/messages/translator.js';

const slots = (text: string) => messageParts(text).flatMap((p) => (typeof p === 'string' ? [] : [p.slot])).sort();
const ids = Object.keys(en) as MessageId[];

describe.each(shippedLocales.filter((l) => l !== 'en'))('the %s messages', (locale) => {
  it('have every English id, no other, none empty, each with the same slots', async () => {
    const messages = (await shippedMessages(locale))!;
    expect(Object.keys(messages).sort()).toEqual([...ids].sort());
    for (const id of ids) {
      expect(messages[id].trim(), id).not.toBe('');
      expect(slots(messages[id]), id).toEqual(slots(en[id]));
    }
  });

  it('are not English left untranslated (beyond the few words that are the same in both)', async () => {
    const messages = (await shippedMessages(locale))!;
    const same = ids.filter((id) => messages[id] === en[id]);
    // Names and examples may stay as they are (a placeholder address, "Code"); sentences may not.
    expect(same.filter((id) => en[id].split(' ').length > 2), 'sentences identical to English').toEqual([]);
  });
});

describe('choosing and filling in text', () => {
  it('right-to-left for Arabic (and its relatives), left-to-right otherwise', () => {
    expect(['ar', 'ar-EG', 'he', 'fa'].map(directionOf)).toEqual(['rtl', 'rtl', 'rtl', 'rtl']);
    expect(['en', 'ja', 'de-AT'].map(directionOf)).toEqual(['ltr', 'ltr', 'ltr']);
  });

  it('an app locale falls back to its language, then English; overrides win over shipped text', async () => {
    const i18n = resolveI18n({ messages: { 'de-AT': { 'signin.title': 'Anmelden (AT)' }, pt: { 'signin.title': 'Entrar' }, en: { 'signout.button': 'Log out' } } });
    expect(i18n.available).toEqual([...shippedLocales, 'de-AT', 'pt']);
    const at = await translatorFor('de-AT', i18n.messages);
    expect([at.t('signin.title'), at.t('signout.button')]).toEqual(['Anmelden (AT)', 'Abmelden']);
    const pt = await translatorFor('pt', i18n.messages);
    expect([pt.t('signin.title'), pt.t('signout.button')]).toEqual(['Entrar', 'Sign out']);
    const english = await translatorFor('en', i18n.messages);
    expect(english.t('signout.button')).toBe('Log out');
    expect(english.t('signin.with', { provider: 'GitHub' })).toBe('Sign in with GitHub');
  });

  it('refuses a malformed locale key or a default without messages, at start-up', () => {
    expect(() => resolveI18n({ messages: { 'not a tag': {} } })).toThrow(/locale tag/);
    expect(() => resolveI18n({ defaultLocale: 'xx' })).toThrow(/defaultLocale/);
    expect(resolveI18n({ defaultLocale: 'de-CH' }).defaultLocale).toBe('de');
  });
});
