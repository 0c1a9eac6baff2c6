// The "Write your own flow" example of docs/custom-flows.md, taken from the page as it is and run over HTTP: a reader
// who copies it gets a flow that pauses on a form, signs in with the right code, and refuses a wrong or replayed one.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { ORIGIN, testAuth, type TestAuth } from '../support/auth-app.js';
import { useMigratedPGlite } from '../support/pglite.js';

const PAGE = fileURLToPath(new URL('../../docs/custom-flows.md', import.meta.url));
// Git-ignored: rewritten from the page on every run.
const GENERATED = fileURLToPath(new URL('./.generated/docs-flow.ts', import.meta.url));

/** The first TypeScript block under "## Write your own flow". */
function pageExample(): string {
  const page = readFileSync(PAGE, 'utf8');
  const at = page.indexOf('## Write your own flow');
  if (at < 0) throw new Error('docs/custom-flows.md has no "Write your own flow" section.');
  const block = /```ts\n([\s\S]*?)```/.exec(page.slice(at));
  if (!block) throw new Error('docs/custom-flows.md has no TypeScript example under "Write your own flow".');
  return block[1];
}

const pg = useMigratedPGlite();
let EmailCode: (options: { send: (p: { email: string; code: string }) => unknown }) => Record<string, unknown>;
const outbox: { email: string; code: string }[] = [];
let t: TestAuth;

beforeAll(async () => {
  const source = pageExample();
  expect(source.split('\n').length, 'the page promises an example of about 60 lines').toBeLessThanOrEqual(65);
  mkdirSync(fileURLToPath(new URL('./.generated/', import.meta.url)), { recursive: true });
  writeFileSync(GENERATED, source);
  ({ EmailCode } = await import(/* @vite-ignore */ GENERATED));
  t = testAuth({ adapter: pg.adapter, providers: [EmailCode({ send: (p) => void outbox.push(p) }) as never] });
});

async function requestCode(email: string) {
  const csrfToken = await t.csrfToken();
  const form = await t.client.post('/auth/signin/email-code', { csrfToken, email });
  return { form, csrfToken, code: outbox.find((m) => m.email === email)!.code };
}
const sessionOf = async () => (await (await t.client.get('/auth/session')).json()) as { user?: { email?: string } } | null;

describe('the custom flow of docs/custom-flows.md, as written', () => {
  it('is listed on the sign-in page with its e-mail field', async () => {
    const page = await (await t.client.get('/auth/signin')).text();
    expect(page).toContain('E-mail code');
    expect(page).toMatch(/action="[^"]*\/auth\/signin\/email-code"/);
  });

  it('pauses on the built-in form, then signs in with the code: a session for that address', async () => {
    const { form, csrfToken, code } = await requestCode('reader@example.com');
    expect(form.status).toBe(200);
    const page = await form.text();
    expect(page).toContain('We sent a code to reader@example.com.');
    expect(page).toContain(`name="csrfToken" value="${csrfToken}"`);
    const done = await t.client.post('/auth/callback/email-code', { csrfToken, code });
    expect(done.status).toBe(302);
    expect(done.headers.get('location')).not.toMatch(/error=/);
    expect((await sessionOf())?.user?.email).toBe('reader@example.com');
  });

  it('refuses a wrong code, and the right one after it (the token was spent): Verification, no session', async () => {
    t.client.cookies.clear();
    const { csrfToken, code } = await requestCode('guesser@example.com');
    const replay = t.newClient();
    for (const c of t.client.cookies.all()) replay.cookies.set(c.name, c.value, ORIGIN);
    const wrong = await t.client.post('/auth/callback/email-code', { csrfToken, code: code === '000000' ? '111111' : '000000' });
    expect(wrong.headers.get('location')).toMatch(/error=Verification/);
    const again = await replay.post('/auth/callback/email-code', { csrfToken, code });
    expect(again.headers.get('location')).toMatch(/error=Verification/);
    expect(await sessionOf()).toBeNull();
  });
});
