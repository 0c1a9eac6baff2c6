// The one nodemailer loader: every mail authchart sends itself (sign-in links and codes, password and address mails,
// activity notices) goes through a pooled transport per server, with nodemailer imported on first use. nodemailer is
// optional and must never be a bundler's business: its name is assembled at run time, so no build folds it into a
// literal import that a Workers bundle would then fail to resolve.

/** An SMTP connection URL (`smtp://user:pass@host:587`) or nodemailer transport options. */
export type MailServer = string | Record<string, unknown>;

/** The part of a nodemailer transport authchart uses. */
export interface MailTransport {
  sendMail(message: Record<string, unknown>): Promise<{ rejected?: unknown[]; pending?: unknown[] }>;
}

// One transport per server, so `pool: true` reuses its connections across sign-ins.
const transports = new Map<string, Promise<MailTransport>>();

/** The pooled nodemailer transport of `server`; rejects, saying what to install, without nodemailer. */
export async function transportFor(server: MailServer): Promise<MailTransport> {
  const key = typeof server === 'string' ? server : JSON.stringify(server);
  let transport = transports.get(key);
  if (!transport) {
    transport = (async () => {
      const specifier = ['node', 'mailer'].join('');
      let mod: { createTransport?: (s: MailServer) => MailTransport; default?: { createTransport?: (s: MailServer) => MailTransport } };
      try {
        mod = (await import(/* @vite-ignore */ specifier)) as typeof mod;
      } catch (err) {
        throw new Error('The default e-mail sender needs nodemailer: run `npm install nodemailer`, or give the provider a `sendVerificationRequest`.', { cause: err });
      }
      const createTransport = mod.createTransport ?? mod.default?.createTransport;
      if (!createTransport) throw new Error('nodemailer has no createTransport export.');
      return createTransport(server);
    })();
    transports.set(key, transport);
    // A failed import must not stick: the next mail tries again.
    transport.catch(() => transports.delete(key));
  }
  return transport;
}

/**
 * Sends one mail through `server`; rejects when the server refuses the recipient.
 *
 * @example
 * await sendMailThrough('smtp://127.0.0.1:2525', { to, from, subject, text, html })
 */
export async function sendMailThrough(server: MailServer, message: { to: string; from: string; subject: string; text: string; html?: string }): Promise<void> {
  const result = await (await transportFor(server)).sendMail(message);
  const failed = [...(result.rejected ?? []), ...(result.pending ?? [])].filter(Boolean);
  if (failed.length > 0) throw new Error(`The mail server did not accept the mail for ${failed.map(String).join(', ')}.`);
}
