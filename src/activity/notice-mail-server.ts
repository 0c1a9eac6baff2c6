// Sending a notice through a mail server with nodemailer, loaded on first use (optional, as for the sign-in mails),
// one pooled transport per server. The activity layer sits below the providers, so it keeps this small loader of
// its own rather than the e-mail provider's.
type Transport = { sendMail(message: Record<string, unknown>): Promise<{ rejected?: unknown[]; pending?: unknown[] }> };
type Server = string | Record<string, unknown>;

const transports = new Map<string, Promise<Transport>>();

async function transportOf(server: Server): Promise<Transport> {
  const key = typeof server === 'string' ? server : JSON.stringify(server);
  let transport = transports.get(key);
  if (!transport) {
    transport = (async () => {
      // A variable specifier keeps nodemailer optional: neither TypeScript nor a bundler requires it.
      const specifier = 'nodemailer';
      const mod = (await import(specifier)) as { createTransport?: (s: Server) => Transport; default?: { createTransport?: (s: Server) => Transport } };
      const create = mod.createTransport ?? mod.default?.createTransport;
      if (!create) throw new Error('nodemailer has no createTransport export.');
      return create(server);
    })();
    transports.set(key, transport);
    transport.catch(() => transports.delete(key));
  }
  return transport;
}

/** Sends one notice; rejects when the server refuses it. */
export async function sendNoticeThrough(server: Server, message: { to: string; from: string; subject: string; text: string; html: string }): Promise<void> {
  const result = await (await transportOf(server)).sendMail(message);
  if ([...(result.rejected ?? []), ...(result.pending ?? [])].filter(Boolean).length > 0) throw new Error('The mail server did not accept the notice.');
}
