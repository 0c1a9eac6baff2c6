// A real SMTP server (smtp-server) on 127.0.0.1 that keeps every message it accepts, so e-mail sign-in tests can
// wait for the magic link a user would receive, and can make the server refuse mail.
import { SMTPServer } from 'smtp-server';
import { decodeMail } from './mail-decode.js';
import { LOOPBACK, listenLoopback } from './net.js';

/** A message as received: envelope, raw source and what was decoded from it. */
export interface ReceivedMail {
  /** Envelope sender (MAIL FROM). */
  from: string;
  /** Envelope recipients (RCPT TO), lower-cased. */
  to: string[];
  /** The message exactly as transmitted (CRLF line ends, transfer encodings intact). */
  raw: string;
  subject: string;
  /** The text part with quoted-printable/base64 decoded (the HTML when there is no text part). */
  text: string;
  html: string;
  /** Links found in the text, then the HTML. */
  links: string[];
  headers: Record<string, string>;
}

/** Options for {@link SmtpHarness.waitForMessage}. */
export interface WaitOptions {
  /** Milliseconds before rejecting; default 5000. */
  timeout?: number;
}

/** A running SMTP server. */
export interface SmtpHarness {
  /** `smtp://127.0.0.1:PORT`. */
  url: string;
  host: string;
  port: number;
  /** Every accepted message, oldest first. */
  readonly messages: readonly ReceivedMail[];
  /**
   * Resolves with the oldest message to `to` not yet returned by an earlier call (so two waits get two mails),
   * waiting for it if needed.
   */
  waitForMessage(to: string, options?: WaitOptions): Promise<ReceivedMail>;
  /** Answer the next `n` messages with `550` at MAIL FROM. */
  failNext(n?: number): void;
  /** While true, every message is answered with `550`. */
  rejectAll(reject: boolean): void;
  /** Forget received messages (pending waits stay). */
  clear(): void;
  stop(): Promise<void>;
}

// Captured at import so a test that fakes timers cannot stall waitForMessage's deadline.
const realSetTimeout = globalThis.setTimeout;
const realClearTimeout = globalThis.clearTimeout;

interface Waiter {
  to: string;
  resolve(mail: ReceivedMail): void;
  reject(error: Error): void;
}

/**
 * Starts an SMTP server on 127.0.0.1 (no auth, no STARTTLS, no logging).
 * Send with nodemailer `{ host: '127.0.0.1', port, secure: false, ignoreTLS: true, pool: true }`: smtp-server
 * waits 100 ms before greeting each new connection, a pooled transport pays that once.
 *
 * @example
 * const smtp = await startSmtpServer();
 * // ... the app sends a sign-in mail to alice@example.test
 * const [link] = (await smtp.waitForMessage('alice@example.test')).links;
 * await smtp.stop();
 */
export async function startSmtpServer(options: { port?: number } = {}): Promise<SmtpHarness> {
  const messages: ReceivedMail[] = [];
  const delivered = new Set<ReceivedMail>();
  let waiters: Waiter[] = [];
  let failures = 0;
  let rejecting = false;

  const deliver = (mail: ReceivedMail) => {
    for (const waiter of waiters) {
      if (!delivered.has(mail) && mail.to.includes(waiter.to)) {
        delivered.add(mail);
        waiters = waiters.filter((w) => w !== waiter);
        waiter.resolve(mail);
      }
    }
  };

  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    // A pooled sender may still hold a connection at stop(); do not wait smtp-server's default 30 s for it.
    closeTimeout: 100,
    onMailFrom(_address, _session, callback) {
      if (rejecting || failures > 0) {
        if (failures > 0) failures -= 1;
        callback(Object.assign(new Error('Mailbox unavailable (test server told to refuse)'), { responseCode: 550 }));
        return;
      }
      callback();
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        const decoded = decodeMail(raw);
        const from = session.envelope.mailFrom;
        const mail: ReceivedMail = {
          from: from ? from.address : '',
          to: session.envelope.rcptTo.map((rcpt) => rcpt.address.toLowerCase()),
          raw,
          subject: decoded.subject,
          text: decoded.text,
          html: decoded.html,
          links: decoded.links,
          headers: decoded.headers,
        };
        messages.push(mail);
        callback();
        deliver(mail);
      });
    },
  });

  const port = await listenLoopback(server.server, options.port);

  return {
    url: `smtp://${LOOPBACK}:${port}`,
    host: LOOPBACK,
    port,
    messages,
    waitForMessage(to, { timeout = 5000 } = {}) {
      const address = to.toLowerCase();
      const ready = messages.find((mail) => !delivered.has(mail) && mail.to.includes(address));
      if (ready) {
        delivered.add(ready);
        return Promise.resolve(ready);
      }
      return new Promise<ReceivedMail>((resolve, reject) => {
        const timer = realSetTimeout(() => {
          waiters = waiters.filter((w) => w !== waiter);
          const seen = messages.map((mail) => mail.to.join(',')).join('; ') || 'none';
          reject(new Error(`waitForMessage(${to}): nothing within ${timeout} ms (received for: ${seen})`));
        }, timeout);
        const waiter: Waiter = {
          to: address,
          resolve: (mail) => {
            realClearTimeout(timer);
            resolve(mail);
          },
          reject: (error) => {
            realClearTimeout(timer);
            reject(error);
          },
        };
        waiters.push(waiter);
      });
    },
    failNext(n = 1) {
      failures = n;
    },
    rejectAll(reject) {
      rejecting = reject;
    },
    clear() {
      messages.length = 0;
      delivered.clear();
    },
    stop() {
      for (const waiter of waiters) waiter.reject(new Error('waitForMessage: the SMTP server was stopped'));
      waiters = [];
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
