// The demo IdP's own login page, in the demo's style: oidc-provider's interaction routes (GET the page, POST login or
// cancel) answered here instead of its development screens, which fetch a web font and show a debug panel.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { escapeHtml } from '../../src/core/html-escape.js';
import { demoCss, faviconLink } from './style.js';

/** What this module needs of an oidc-provider instance. */
interface InteractionProvider {
  interactionDetails(req: IncomingMessage, res: ServerResponse): Promise<{ uid: string; prompt: { name: string } }>;
  interactionFinished(req: IncomingMessage, res: ServerResponse, result: object, options?: { mergeWithLastSubmission?: boolean }): Promise<void>;
}

function page(uid: string, users: Record<string, { name: string }>): string {
  const known = Object.keys(users).map((id) => `<code>${escapeHtml(id)}</code>`).join(' or ');
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">${faviconLink}<title>Demo IdP: sign in</title>
<style>${demoCss}
body{max-width:24rem;padding-top:3rem}
form{display:grid;gap:.75rem}
label{font-weight:600;font-size:.9rem}
input{width:100%}
.cancel{margin-top:.75rem}
.cancel button{width:100%}
button[type=submit]{width:100%}
</style></head><body>
<main class="card"><h1>Demo IdP</h1>
<p class="muted">A pretend identity provider for the authchart demo. Sign in as ${known} (or any name); any password works.</p>
<form method="post" action="/interaction/${escapeHtml(uid)}/login">
<div><label for="login">User name</label><input id="login" name="login" autocomplete="username" autocapitalize="none" spellcheck="false" required autofocus></div>
<div><label for="password">Password</label><input id="password" name="password" type="password" autocomplete="current-password" required></div>
<button type="submit">Sign in</button>
</form>
<form class="cancel" method="post" action="/interaction/${escapeHtml(uid)}/abort"><button type="submit" class="secondary">Cancel and go back</button></form>
</main></body></html>`;
}

async function formBody(req: IncomingMessage): Promise<URLSearchParams> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
}

/**
 * Answers `/interaction/:uid` (the login page), `/interaction/:uid/login` and `/interaction/:uid/abort` (the user
 * cancelled: the client gets `error=access_denied`).
 *
 * @example
 * if (req.url?.startsWith('/interaction/')) return handleInteraction(provider, users, req, res);
 */
export async function handleInteraction(provider: InteractionProvider, users: Record<string, { name: string }>, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const details = await provider.interactionDetails(req, res);
  const action = /^\/interaction\/[^/]+\/(login|abort)$/.exec(req.url ?? '')?.[1];
  if (req.method === 'GET' && !action) {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' }).end(page(details.uid, users));
    return;
  }
  if (req.method !== 'POST' || !action) {
    res.writeHead(405).end();
    return;
  }
  if (action === 'abort') {
    await provider.interactionFinished(req, res, { error: 'access_denied', error_description: 'The user cancelled the sign-in.' }, { mergeWithLastSubmission: false });
    return;
  }
  const login = (await formBody(req)).get('login')?.trim().toLowerCase();
  if (!login) {
    res.writeHead(303, { location: `/interaction/${details.uid}` }).end();
    return;
  }
  await provider.interactionFinished(req, res, { login: { accountId: login } }, { mergeWithLastSubmission: false });
}
