// The language of what a browser is shown and sent, chosen per request over HTTP: the browser's Accept-Language,
// the app's `locale` callback first, the app's own messages over the shipped ones, and the sign-in mail in the
// language of the request that asked for it.
import { describe, expect, it } from 'vitest';
import type { SendVerificationRequestParams } from '../../src/providers/email.js';
import { signInMail } from '../../src/providers/email-senders/http-api.js';
import { Credentials } from '../../src/providers/credentials.js';
import { Email } from '../../src/providers/email.js';
import { testAuth } from '../support/auth-app.js';
import { useMigratedPGlite } from '../support/pglite.js';

const credentials = Credentials({ credentials: { email: {}, password: {} }, authorize: () => null });
const lang = (page: string) => /<html lang="([^"]+)" dir="([^"]+)">/.exec(page)?.slice(1);
const h1 = (page: string) => /<h1>([^<]*)<\/h1>/.exec(page)?.[1];

describe('the language of the pages', () => {
  it("follows the browser's Accept-Language, best match first; English without one", async () => {
    const t = testAuth({ providers: [credentials] });
    const ja = await (await t.client.get('/auth/signin', { headers: { 'accept-language': 'ja-JP,ja;q=0.9,en;q=0.5' } })).text();
    expect(lang(ja)).toEqual(['ja', 'ltr']);
    expect(h1(ja)).toBe('ログイン');
    const ar = await (await t.client.get('/auth/signin', { headers: { 'accept-language': 'ar-EG' } })).text();
    expect(lang(ar)).toEqual(['ar', 'rtl']);
    const none = await (await t.client.get('/auth/signin', { headers: { 'accept-language': 'zh-Hant, ko' } })).text();
    expect([lang(none), h1(none)]).toEqual([['en', 'ltr'], 'Sign in']);
    const error = await (await t.client.get('/auth/error?error=Verification', { headers: { 'accept-language': 'fr' } })).text();
    expect(h1(error)).toBe('Connexion impossible');
    const signout = await (await t.client.get('/auth/signout', { headers: { 'accept-language': 'es' } })).text();
    expect(h1(signout)).toBe('Cerrar sesión');
  });

  it("the app's `locale` callback wins; its failure falls back and is logged, never a broken page", async () => {
    const t = testAuth({
      providers: [credentials],
      locale: (request) => {
        const chosen = /(?:^|;\s*)lang=([^;]+)/.exec(request.headers.get('cookie') ?? '')?.[1];
        if (chosen === 'boom') throw new Error('locale store down');
        return chosen;
      },
    });
    const de = await t.client.get('/auth/signin', { headers: { 'accept-language': 'ja', cookie: 'lang=de' } });
    expect(lang(await de.text())).toEqual(['de', 'ltr']);
    const unknown = await t.client.get('/auth/signin', { headers: { 'accept-language': 'ja', cookie: 'lang=xx' } });
    expect(lang(await unknown.text())).toEqual(['ja', 'ltr']);
    const broken = await t.client.get('/auth/signin', { headers: { 'accept-language': 'fr', cookie: 'lang=boom' } });
    expect(broken.status).toBe(200);
    expect(lang(await broken.text())).toEqual(['fr', 'ltr']);
    expect(t.logger.errors.map((e) => e.message)).toContain('locale store down');
  });

  it("the app's messages override single shipped ones and add a locale, with the default of its choice", async () => {
    const t = testAuth({ providers: [credentials], defaultLocale: 'de', messages: { en: { 'signin.title': 'Log in' }, 'pt-BR': { 'signin.title': 'Entrar' } } });
    expect(h1(await (await t.client.get('/auth/signin', { headers: { 'accept-language': 'en-GB' } })).text())).toBe('Log in');
    const pt = await (await t.client.get('/auth/signin', { headers: { 'accept-language': 'pt' } })).text();
    expect([lang(pt), h1(pt)]).toEqual([['pt-BR', 'ltr'], 'Entrar']);
    // An id the app did not translate falls back to English, never to a raw id.
    expect(pt).toContain('Sign in with');
    expect(h1(await (await t.client.get('/auth/signin')).text())).toBe('Anmelden');
  });
});

describe('the language of the sign-in mail', () => {
  const pg = useMigratedPGlite();

  it('is the language of the request that asked for it', async () => {
    const sent: SendVerificationRequestParams[] = [];
    const t = testAuth({ adapter: pg.adapter, providers: [Email({ sendVerificationRequest: (p) => void sent.push(p) })] });
    const csrfToken = await t.csrfToken();
    await t.client.post('/auth/signin/email', { csrfToken, email: 'ada@example.com' }, { headers: { 'accept-language': 'de-DE,de;q=0.9' } });
    expect(sent).toHaveLength(1);
    expect(sent[0]!.locale).toBe('de');
    const mail = signInMail(sent[0]!);
    expect(mail.subject).toBe('Bei localhost:3000 anmelden');
    expect(mail.html).toContain('<html lang="de" dir="ltr">');
    // The page after sending speaks the same language.
    const page = await (await t.client.get('/auth/verify-request', { headers: { 'accept-language': 'de' } })).text();
    expect(h1(page)).toBe('Prüfen Sie Ihre E-Mails');
  });
});
