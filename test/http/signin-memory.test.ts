// The sign-in page's memory between attempts: the identifier typed into a failed password form comes back once
// (never the password), the page tells a signed-in visitor who they are, and says why a visitor was sent there.
import { describe, expect, it } from 'vitest';
import { testAuth } from '../support/auth-app.js';
import { forms, tags, text } from './pages/dom.js';
import { ADA, adaProvider, PASSWORD, signIn } from './helpers.js';

const TYPED = 'authchart.typed-identifier';

async function credentialsInputs(t: ReturnType<typeof testAuth>, path = '/auth/signin?error=CredentialsSignin') {
  const html = await (await t.client.get(path)).text();
  const form = forms(html).find((f) => f.form.attrs.action.endsWith('/auth/callback/credentials'))!;
  return { html, inputs: tags(form.inner, 'input').filter((i) => i.attrs.type !== 'hidden') };
}

describe('after a failed password sign-in', () => {
  it('the typed address comes back on the next page view only, with focus on the password; the password never', async () => {
    const t = testAuth({ providers: [adaProvider()] });
    const failed = await signIn(t, { password: 'wrong-password' });
    expect(failed.location?.searchParams.get('error')).toBe('CredentialsSignin');
    const kept = failed.setCookie.find((line) => line.startsWith(`${TYPED}=`))!;
    expect(kept).toMatch(/HttpOnly/i);
    expect(kept).toMatch(/Max-Age=300/i);
    expect(failed.setCookie.join('\n')).not.toContain('wrong-password');
    // Not in the URL either.
    expect(failed.location?.href).not.toContain(encodeURIComponent(ADA.email));

    const { inputs } = await credentialsInputs(t);
    expect(inputs.map((i) => [i.attrs.name, i.attrs.value, 'autofocus' in i.attrs])).toEqual([
      ['email', ADA.email, false],
      ['password', undefined, true],
    ]);
    // Read once.
    const again = await credentialsInputs(t);
    expect(again.inputs.map((i) => i.attrs.value)).toEqual([undefined, undefined]);
  });

  it('a successful sign-in keeps nothing', async () => {
    const t = testAuth({ providers: [adaProvider()] });
    const ok = await signIn(t, { password: PASSWORD });
    expect(ok.setCookie.some((line) => line.startsWith(`${TYPED}=`) && !/Max-Age=0/i.test(line))).toBe(false);
  });
});

describe('the sign-in page knows its visitor', () => {
  it('a signed-in visitor is told who they are and offered to continue', async () => {
    const t = testAuth({ providers: [adaProvider()] });
    await signIn(t, { callbackUrl: '/dashboard' });
    const html = await (await t.client.get('/auth/signin?callbackUrl=%2Fdashboard')).text();
    expect(text(html.replace(/<wbr>/g, ''))).toContain(`You are signed in as ${ADA.email}.`);
    expect(html).toMatch(/<a class="button primary" href="http:\/\/localhost:3000\/dashboard">Continue<\/a>/);
    const stranger = await (await t.newClient().get('/auth/signin')).text();
    expect(text(stranger)).not.toContain('You are signed in');
  });

  it('a visitor sent from a page is told why; the home page, another origin or no callbackUrl say nothing', async () => {
    const t = testAuth({ providers: [adaProvider()] });
    const said = async (query: string) => text((await (await t.newClient().get(`/auth/signin${query}`)).text()).replace(/<wbr>/g, ''));
    expect(await said('?callbackUrl=%2Fprotected')).toContain('Sign in to see that page (/protected).');
    for (const query of ['', '?callbackUrl=%2F', '?callbackUrl=https%3A%2F%2Fevil.example%2Fx']) expect(await said(query)).not.toContain('Sign in to see');
  });
});
