// The demo's own pages: who is signed in (with the accounts and sessions stored for them), and a page
// only a signed-in user may see.
import type { Session } from '../../src/index.js';
import { escapeHtml } from '../../src/core/html-escape.js';
import type { DemoServices } from './config.js';
import { demoCss, faviconLink, humanDate } from './style.js';

/**
 * The demo's page frame; `nav` links the demo's pages (the mailbox only when the demo has one), and "Sign out" for a
 * signed-in visitor or "Sign in" for anyone else, never both.
 */
export function layout(title: string, body: string, options: { mailbox?: boolean; signedIn?: boolean } = {}): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">${faviconLink}
<title>${escapeHtml(title)}</title>
<style>${demoCss}</style></head><body><nav><a href="/">Home</a><a href="/protected">Protected page</a>${options.mailbox ? '<a href="/dev/mailbox">Mailbox</a>' : ''}${options.signedIn ? '<a href="/auth/signout">Sign out</a>' : '<a href="/auth/signin">Sign in</a>'}</nav>${body}</body></html>`;
}

/** The notes' URLs and demo paths as links (the inspector, the mailbox, the IdP); a sentence's `.,):;` stays outside. */
export function linkify(escaped: string): string {
  return escaped.replace(/(https?:\/\/[^\s<]+?|\/dev\/mailbox|\/auth\/_inspect)(?=[.,):;]?(?:\s|$))/g, (url) => `<a href="${url}">${url}</a>`);
}

/** How this user's latest sign-in went, in the words a person uses. */
function howSignedIn(provider: string | undefined, session: Session): string {
  const email = escapeHtml(String(session.user?.email ?? 'your address'));
  switch (provider) {
    case undefined:
      return 'You are signed in (this demo started after your sign-in, so it does not know how).';
    case 'credentials':
      return "You signed in with the demo account's password.";
    case 'email':
      return `You signed in with a link sent to ${email}.`;
    case 'passkey':
      return session.user?.email
        ? 'You signed in with a passkey on this device.'
        : 'You signed in with a passkey on this device. This account has no e-mail address: one typed when creating a passkey only labels it on the device. To add a passkey to an account you already have, sign in to that account first, then use Add a passkey.';
    case 'demo-idp':
      return `You signed in with Demo IdP, which vouched for ${email}.`;
    default:
      return `You signed in with ${escapeHtml(provider)}.`;
  }
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
    .map((s) => `<li><code>${escapeHtml(s.fingerprint)}</code> until ${escapeHtml(humanDate(s.expires))}${s.current ? ' <strong>(this browser)</strong>' : ''}</li>`)
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
<p class="actions"><label>Email <input name="email" type="email" autocomplete="username" inputmode="email" required></label> <label>Password <input name="password" type="password" autocomplete="current-password" required></label> <button>Sign in</button></p>
<p role="alert"></p></form>`;

/** The home page; `devices` is the "Your devices" card (devices.ts), shown under who is signed in. */
export async function homePage(session: Session | null, services: DemoServices, sessionToken?: string, devices = ''): Promise<string> {
  const who = session?.user
    ? `<p>Signed in as <strong>${escapeHtml(String(session.user.name ?? session.user.email ?? 'a passkey user'))}</strong>${session.user.name && session.user.email ? ` (${escapeHtml(String(session.user.email))})` : ''}.</p>
       <p>${howSignedIn(services.lastSignIn.get(String((session.user as { id?: unknown }).id)), session)} This session lasts until ${escapeHtml(humanDate(new Date(session.expires)))}.</p>
       <p class="actions"><a class="button" href="/auth/signout" data-signout>Sign out</a> ${addPasskey(session)}</p>
       <p><a href="/auth/account" data-account>Your account</a> (link and unlink providers, passkeys, devices) · <a href="/auth/factors?callbackUrl=/auth/factors">Two-step verification</a> (authenticator app, backup codes) · <a href="/account/security">Security settings</a> (asks for a recent factor check)</p>
       ${await storedState(session, services, sessionToken).catch(() => '<p>The database could not be read.</p>')}`
    : `<p>You are not signed in.</p><p><a class="button" href="/auth/signin">Sign in</a></p>${quickSignIn}`;
  const notes = services.notes.map((n) => `<li>${linkify(escapeHtml(n))}</li>`).join('');
  const user = escapeHtml(String(session?.user?.email ?? ''));
  const mailbox = services.routes.some((r) => r.path === '/dev/mailbox');
  return layout('authchart demo', `<h1>authchart demo</h1><div class="card" id="who" data-user="${user}">${who}</div>${devices}<div class="card"><h2>What runs here</h2><ul>${notes}</ul></div>${homeScript}${session?.user ? passkeyScript : ''}`, { mailbox, signedIn: Boolean(session?.user) });
}

/**
 * "Add a passkey": the built-in passkey script drives this section like the sign-in page's; signed in, a registration
 * adds the passkey to this user. The address only labels the passkey on the device.
 */
function addPasskey(session: Session): string {
  // Signed in, the address only labels the passkey on the device; a passkey-only user has none to give.
  const email = session.user?.email ? `<input type="hidden" name="email" value="${escapeHtml(String(session.user.email))}">` : '';
  return `<span class="passkey" data-webauthn data-signed-in data-provider-id="passkey" data-options-url="/auth/webauthn-options/passkey" data-callback-url="/auth/callback/passkey" data-callback-url-after="/">${email}<button type="button" class="secondary" data-action="register">Add a passkey</button></span>`;
}

// The passkey script posts the CSRF token from the section; the home page fetches one first.
const passkeyScript = `<script type="module">
const section = document.querySelector('[data-webauthn]');
if (section) {
  const { csrfToken } = await (await fetch('/auth/csrf')).json();
  section.dataset.csrfToken = csrfToken;
  const script = document.createElement('script');
  script.src = '/auth/webauthn-script.js';
  document.body.append(script);
}
</script>`;

export function protectedPage(session: Session | null, services?: DemoServices): string {
  const who = escapeHtml(String(session?.user?.name ?? session?.user?.email ?? 'a passkey user'));
  const mailbox = services?.routes.some((r) => r.path === '/dev/mailbox');
  return layout(
    'Protected page',
    `<h1>Protected page</h1><div class="card"><p>Hello, ${who}. You see this page because you are signed in; signed out, this address sends you to the sign-in page, which says why.</p><p><a href="/">Back to the home page</a></p></div>`,
    { mailbox, signedIn: Boolean(session?.user) },
  );
}

/** Behind requireRecentSignIn: reached only within 5 minutes of a sign-in or a factor check. */
export function securityPage(session: Session): string {
  return layout('Security settings', `<h1>Security settings</h1><p>${escapeHtml(String(session.user?.email ?? ''))} passed a sign-in or a factor check in the last 5 minutes, so this page opens. Change what matters here.</p><p><a href="/auth/factors?callbackUrl=/auth/factors">Manage two-step verification</a></p>`, { signedIn: true });
}
