// The demo's own pages: who is signed in (with the accounts and sessions stored for them), and a page
// only a signed-in user may see.
import type { Session } from '../../src/index.js';
import { escapeHtml } from '../../src/core/html-escape.js';
import { DEMO_EMAIL, type DemoServices } from './config.js';

function layout(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>
body{font-family:system-ui,sans-serif;max-width:42rem;margin:3rem auto;padding:0 1rem;color:#1f2937;line-height:1.5}
a.button,button{display:inline-block;padding:.5rem 1rem;border-radius:.5rem;background:#4f46e5;color:#fff;text-decoration:none;border:0;font:inherit;cursor:pointer}
.card{border:1px solid #e5e7eb;border-radius:.75rem;padding:1rem 1.25rem;margin:1rem 0}
code{background:#f3f4f6;padding:.1rem .3rem;border-radius:.25rem}
nav a{margin-right:1rem}
</style></head><body><nav><a href="/">Home</a><a href="/protected">Protected page</a><a href="/auth/signin">Sign in</a><a href="/auth/signout">Sign out</a></nav>${body}</body></html>`;
}

/** What the database knows about the signed-in user: linked provider accounts and live sessions. */
async function storedState(session: Session, services: DemoServices, sessionToken: string | undefined): Promise<string> {
  const id = (session.user as { id?: unknown } | undefined)?.id;
  if (id === undefined || id === null) return '';
  const [accounts, sessions] = await Promise.all([services.database.linkedAccounts(String(id)), services.database.activeSessions(String(id), sessionToken)]);
  const accountItems = accounts.length
    ? accounts.map((a) => `<li><strong>${escapeHtml(a.provider)}</strong> (${escapeHtml(a.type)}) as <code>${escapeHtml(a.providerAccountId)}</code></li>`).join('')
    : '<li>None: this user signs in with the demo account\'s password.</li>';
  const sessionItems = sessions
    .map((s) => `<li><code>${escapeHtml(s.fingerprint)}</code> until ${escapeHtml(s.expires.toISOString())}${s.current ? ' <strong>(this browser)</strong>' : ''}</li>`)
    .join('');
  return `<h2>Linked accounts</h2><ul>${accountItems}</ul><h2>Active sessions</h2><ul>${sessionItems}</ul>`;
}

// The home page on authchart/client: it follows sign-ins and sign-outs made in other tabs (and on focus, and every
// minute), signs out in one click, and signs in with the demo account without leaving the page.
const homeScript = `<script type="module">
import { createSessionStore, signIn, signOut } from '/_client/index.js';
const shown = document.getElementById('who').dataset.user;
createSessionStore({ refetchInterval: 60 }).subscribe(({ status, data, error }) => {
  if (status !== 'loading' && !error && (data?.user?.email ?? '') !== shown) location.reload();
});
document.querySelector('[data-signout]')?.addEventListener('click', (event) => {
  event.preventDefault();
  signOut({ redirectTo: '/' });
});
const form = document.getElementById('quick-signin');
form?.addEventListener('submit', async (event) => {
  event.preventDefault();
  const result = await signIn('credentials', { email: form.email.value, password: form.password.value, redirect: false });
  if (result.ok) location.reload();
  else form.querySelector('[role=alert]').textContent = result.error === 'CredentialsSignin' ? 'Wrong e-mail or password.' : 'Sign-in failed: ' + result.error + '.';
});
</script>`;

const quickSignIn = `<form id="quick-signin"><p>Or, without leaving this page (the demo account):</p>
<p><input name="email" type="email" placeholder="${DEMO_EMAIL}" required> <input name="password" type="password" placeholder="password" required> <button>Sign in</button></p>
<p role="alert"></p></form>`;

export async function homePage(session: Session | null, services: DemoServices, sessionToken?: string): Promise<string> {
  const who = session?.user
    ? `<p>Signed in as <strong>${escapeHtml(String(session.user.name ?? ''))}</strong> ${escapeHtml(String(session.user.email ?? ''))}.</p>
       <p>Session expires ${escapeHtml(session.expires)}.</p><p><a class="button" href="/auth/signout" data-signout>Sign out</a></p>
       <p><a href="/auth/factors?callbackUrl=/auth/factors">Two-step verification</a> (authenticator app, backup codes) · <a href="/account/security">Security settings</a> (asks for a recent factor check)</p>
       ${await storedState(session, services, sessionToken).catch(() => '<p>The database could not be read.</p>')}`
    : `<p>You are not signed in.</p><p><a class="button" href="/auth/signin">Sign in</a></p>${quickSignIn}`;
  const notes = services.notes.map((n) => `<li>${escapeHtml(n)}</li>`).join('');
  const user = escapeHtml(String(session?.user?.email ?? ''));
  return layout('authchart demo', `<h1>authchart demo</h1><div class="card" id="who" data-user="${user}">${who}</div><div class="card"><h2>What runs here</h2><ul>${notes}</ul></div>${homeScript}`);
}

export function protectedPage(session: Session | null): string {
  return layout('Protected', `<h1>Protected page</h1><p>Only signed-in users see this. Hello, ${escapeHtml(String(session?.user?.name ?? session?.user?.email ?? 'stranger'))}.</p>`);
}

/** Behind requireRecentSignIn: reached only within 5 minutes of a sign-in or a factor check. */
export function securityPage(session: Session): string {
  return layout('Security settings', `<h1>Security settings</h1><p>${escapeHtml(String(session.user?.email ?? ''))} passed a sign-in or a factor check in the last 5 minutes, so this page opens. Change what matters here.</p><p><a href="/auth/factors?callbackUrl=/auth/factors">Manage two-step verification</a></p>`);
}
