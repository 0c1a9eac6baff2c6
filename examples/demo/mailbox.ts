// E-mail sign-in and password accounts for the demo with no mail server: an in-process SMTP catcher (smtp-server on
// 127.0.0.1) that keeps the mails authchart sends (sign-in links, sign-up proofs, password resets), and a
// /dev/mailbox page listing them with their links. With AUTH_EMAIL_SERVER set, the catcher stays off and the mails go
// out through that server instead.
import type { AddressInfo } from 'node:net';
import { defineHandler } from 'h3';
import { SMTPServer } from 'smtp-server';
import { getSession, type AuthConfig } from '../../src/index.js';
import { escapeHtml } from '../../src/core/html-escape.js';
import { Email } from '../../src/providers/email.js';
import { Password } from '../../src/providers/password/index.js';
import type { DemoServices } from './config.js';
import { layout } from './pages.js';
import { humanDate } from './style.js';

/** A caught mail, decoded enough to show it. */
export interface CaughtMail {
  at: Date;
  from: string;
  to: string[];
  subject: string;
  text: string;
  links: string[];
}

/** How many mails the page keeps (the newest). */
const KEEP = 50;

// ---- a small MIME reader: enough for the mails authchart sends (UTF-8, quoted-printable or base64, multipart) --

function splitHead(raw: string): { headers: Record<string, string>; body: string } {
  const end = raw.search(/\r?\n\r?\n/);
  const head = end < 0 ? raw : raw.slice(0, end);
  const body = end < 0 ? '' : raw.slice(end).replace(/^\r?\n\r?\n/, '');
  const headers: Record<string, string> = {};
  for (const line of head.replace(/\r?\n[ \t]+/g, ' ').split(/\r?\n/)) {
    const colon = line.indexOf(':');
    const name = line.slice(0, colon).trim().toLowerCase();
    if (colon > 0 && !(name in headers)) headers[name] = line.slice(colon + 1).trim();
  }
  return { headers, body };
}

function fromQuotedPrintable(text: string): string {
  // Each run of `=XX` escapes is a run of bytes (a multi-byte character is never split across plain text).
  return text.replace(/=\r?\n/g, '').replace(/(?:=[0-9A-Fa-f]{2})+/g, (run) => Buffer.from(run.replace(/=/g, ''), 'hex').toString('utf8'));
}

function decodeBody(body: string, encoding: string | undefined): string {
  const e = (encoding ?? '').toLowerCase();
  if (e === 'base64') return Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8');
  if (e === 'quoted-printable') return fromQuotedPrintable(body);
  return body;
}

/** Encoded words in headers (`=?UTF-8?Q?...?=`, `=?UTF-8?B?...?=`). */
function decodeHeader(value: string): string {
  return value.replace(/=\?[^?]+\?([QqBb])\?([^?]*)\?=/g, (_m, kind: string, text: string) =>
    kind.toUpperCase() === 'B' ? Buffer.from(text, 'base64').toString('utf8') : fromQuotedPrintable(text.replace(/_/g, ' ')),
  );
}

/** The text parts of a message (text/plain first, else text/html), decoded. */
function textOf(raw: string): { plain: string[]; html: string[] } {
  const { headers, body } = splitHead(raw);
  const type = headers['content-type'] ?? 'text/plain';
  const boundary = /boundary="?([^";]+)"?/i.exec(type)?.[1];
  if (/^multipart\//i.test(type) && boundary) {
    const parts = body.split(`--${boundary}`).slice(1).filter((p) => !p.startsWith('--'));
    const out = { plain: [] as string[], html: [] as string[] };
    for (const part of parts) {
      const inner = textOf(part.replace(/^\r?\n/, ''));
      out.plain.push(...inner.plain);
      out.html.push(...inner.html);
    }
    return out;
  }
  const text = decodeBody(body, headers['content-transfer-encoding']);
  return /^text\/html/i.test(type) ? { plain: [], html: [text] } : { plain: [text], html: [] };
}

function read(raw: string, envelope: { from: string; to: string[] }): CaughtMail {
  const { headers } = splitHead(raw);
  const { plain, html } = textOf(raw);
  const text = plain.join('\n') || html.join('\n').replace(/<[^>]*>/g, ' ');
  const links = [...new Set([...text.matchAll(/https?:\/\/[^\s"'<>]+/g)].map((m) => m[0]))];
  return { at: new Date(), ...envelope, subject: decodeHeader(headers.subject ?? '(no subject)'), text, links };
}

// ---- the catcher and its page ---------------------------------------------------------------------------------

/** Starts the SMTP catcher on 127.0.0.1 (DEMO_SMTP_PORT, or any free port). */
export async function startMailCatcher(port = Number(process.env.DEMO_SMTP_PORT ?? 0)) {
  const mails: CaughtMail[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    closeTimeout: 100,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const envelope = { from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '', to: session.envelope.rcptTo.map((r) => r.address) };
        mails.unshift(read(Buffer.concat(chunks).toString('utf8'), envelope));
        mails.length = Math.min(mails.length, KEEP);
        callback();
      });
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  const { port: bound } = server.server.address() as AddressInfo;
  return {
    mails,
    /** nodemailer transport options for the catcher (pooled: smtp-server greets each new connection after 100 ms). */
    server: { host: '127.0.0.1', port: bound, secure: false, ignoreTLS: true, pool: true },
    port: bound,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

// Instead of reloading (which would close what the reader opened), the page asks how many mails there are and
// offers the new ones.
const mailboxScript = `<script>
const shown = Number(document.body.dataset.mails);
const notice = document.getElementById('new-mail');
setInterval(async () => {
  const count = Number(await (await fetch('/dev/mailbox/count', { cache: 'no-store' })).text());
  if (count !== shown) notice.hidden = false;
}, 3000);
</script>`;

/** The /dev/mailbox page: every caught mail, newest first, with its links; `signedIn` picks the nav's sign-in or sign-out. */
export function mailboxPage(mails: readonly CaughtMail[], now = new Date(), signedIn = false): string {
  const items = mails.length
    ? mails
        .map((m) => {
          const links = m.links.map((l) => `<li><a class="mail-link" href="${escapeHtml(l)}">${escapeHtml(l.length > 90 ? `${l.slice(0, 90)}…` : l)}</a></li>`).join('');
          return `<article class="card"><h2>${escapeHtml(m.subject)}</h2><p class="muted">To ${escapeHtml(m.to.join(', '))} · from ${escapeHtml(m.from)} · ${escapeHtml(humanDate(m.at, now))}</p>
<ul>${links}</ul><details><summary>Text</summary><pre>${escapeHtml(m.text)}</pre></details></article>`;
        })
        .join('')
    : '<p class="card">No mail yet. <a href="/auth/signin">Sign in with an e-mail link</a>, then come back here.</p>';
  const body = `<h1>Demo mailbox</h1><p>Mails authchart sent while the demo runs (the newest ${KEEP}, kept in memory).</p>
<p id="new-mail" class="card" role="status" hidden>New mail arrived. <a href="/dev/mailbox">Show it</a></p>${items}${mailboxScript}`;
  return layout('Demo mailbox', body, { mailbox: true, signedIn }).replace('<body>', `<body data-mails="${mails.length}">`);
}

/** The home page's line about password accounts, saying where their mails go. */
const passwordNote = (where: string) => `Password accounts: "Create an account" on the sign-in page (/auth/signup/password), "Forgot your password?" to reset one; the mails that prove the address and reset the password ${where}.`;

/**
 * Adds e-mail sign-in and password accounts to the demo: the `Email` and `Password` providers (when the demo has a
 * database; sign-up proofs and password resets are mails too) and, unless
 * AUTH_EMAIL_SERVER points at a real server, the catcher and its /dev/mailbox page. The page shows every live
 * sign-in link to whoever opens it, so it exists only outside production. Returns the closer.
 *
 * @example
 * closers.push(await addEmailSignIn(config, services));
 */
export async function addEmailSignIn(config: AuthConfig, services: DemoServices, env: NodeJS.ProcessEnv = process.env): Promise<() => Promise<void>> {
  if (!config.adapter) {
    services.notes.push('E-mail sign-in is off: it needs the demo database.');
    return async () => {};
  }
  if (env.AUTH_EMAIL_SERVER) {
    config.providers.push(Email({ code: true }), Password());
    services.notes.push('E-mail sign-in: links and one-time codes are sent through AUTH_EMAIL_SERVER.', passwordNote('go through AUTH_EMAIL_SERVER'));
    return async () => {};
  }
  if (env.NODE_ENV === 'production') {
    services.notes.push('E-mail sign-in and password accounts are off: in production they need AUTH_EMAIL_SERVER (the /dev/mailbox catcher is for development only).');
    return async () => {};
  }
  const catcher = await startMailCatcher();
  // Each mail carries a link and a one-time code; the page after sending asks for the code.
  // Password accounts: sign-up mails go through the Email provider's server, reset mails through `mail.server`.
  config.providers.push(Email({ server: catcher.server, code: true }), Password({ mail: { server: catcher.server } }));
  const html = (body: string) => new Response(body, { headers: { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' } });
  services.routes.push({ path: '/dev/mailbox', handler: defineHandler(async (event) => html(mailboxPage(catcher.mails, new Date(), Boolean((await getSession(event, config))?.user)))) });
  services.routes.push({ path: '/dev/mailbox/count', handler: defineHandler(() => new Response(String(catcher.mails.length), { headers: { 'content-type': 'text/plain', 'cache-control': 'no-store' } })) });
  services.notes.push(`E-mail sign-in: no mail server needed; links and codes sent to any address appear at /dev/mailbox (SMTP catcher on 127.0.0.1:${catcher.port}).`, passwordNote('appear at /dev/mailbox'));
  return catcher.close;
}
