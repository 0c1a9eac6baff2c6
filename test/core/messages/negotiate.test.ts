// Which locale a request gets: the app's choice when it has text for it, else the browser's list in preference
// order (whole tag, then language), else the default; a hostile header is read only so far.
import { describe, expect, it } from 'vitest';
import { acceptedLanguages, matchLocale, negotiateLocale } from '../../../src/core/messages/negotiate.js';

const available = ['en', 'de', 'fr', 'es', 'ja', 'ar', 'pt-BR'];

describe('Accept-Language', () => {
  it('is read in preference order, ties keeping their order, q=0 and * dropped', () => {
    expect(acceptedLanguages('fr-CH, fr;q=0.9, en;q=0.8, de;q=0.7, *;q=0.5')).toEqual(['fr-CH', 'fr', 'en', 'de']);
    expect(acceptedLanguages('en;q=0.5, ja')).toEqual(['ja', 'en']);
    expect(acceptedLanguages('ja;q=0, de')).toEqual(['de']);
    expect(acceptedLanguages('')).toEqual([]);
    expect(acceptedLanguages(null)).toEqual([]);
  });

  it('skips malformed entries and reads a bounded part of a long header', () => {
    expect(acceptedLanguages('<script>, de;q=abc, ja;q=2, es, fr;level=1')).toEqual(['es', 'fr']);
    const long = `${Array.from({ length: 5000 }, () => 'xx').join(',')},ja`;
    expect(acceptedLanguages(long).length).toBeLessThanOrEqual(16);
    expect(negotiateLocale({ acceptLanguage: long, available, fallback: 'en' })).toBe('en');
  });
});

describe('matching', () => {
  it('by whole tag in any case, then by language', () => {
    expect(matchLocale('DE', available)).toBe('de');
    expect(matchLocale('de-AT', available)).toBe('de');
    expect(matchLocale('pt', available)).toBe('pt-BR');
    expect(matchLocale('zh-Hant', available)).toBeUndefined();
    expect(matchLocale('../en', available)).toBeUndefined();
  });

  it("the app's choice first (when it has text), then the browser's list, then the default", () => {
    expect(negotiateLocale({ chosen: 'ja', acceptLanguage: 'de', available, fallback: 'en' })).toBe('ja');
    expect(negotiateLocale({ chosen: 'zh', acceptLanguage: 'fr-CA,de;q=0.5', available, fallback: 'en' })).toBe('fr');
    expect(negotiateLocale({ acceptLanguage: 'zh, ko', available, fallback: 'es' })).toBe('es');
  });
});
