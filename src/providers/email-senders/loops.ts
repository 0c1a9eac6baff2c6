// Loops (loops.so) as an e-mail sign-in sender: POST /api/v1/transactional naming a transactional e-mail
// designed in Loops, with the magic link as its `url` data variable.
import { Email, type EmailConfig } from '../email.js';
import { endpoint, postToVendor, requireApiKey, type EmailApiOptions } from './http-api.js';

export interface LoopsOptions extends EmailApiOptions {
  /** The id of the published transactional e-mail in Loops; it must use a data variable named `url`. */
  transactionalId: string;
}

/** Loops answers `{ success: true }`; `success: false` is a refusal even with a 2xx status. */
function loopsRefusal(body: unknown): string | undefined {
  const o = body as { success?: unknown; message?: unknown } | null;
  if (!o || typeof o !== 'object' || o.success !== false) return undefined;
  return typeof o.message === 'string' && o.message ? o.message : 'success: false';
}

/**
 * Magic-link sign-in mailed through a Loops transactional e-mail (`fetch`, no SDK). The e-mail's content and
 * sender are designed in Loops (so `from` is not sent); the link arrives as the data variable `url`. The key
 * comes from `apiKey` or `AUTH_LOOPS_KEY`.
 *
 * @example
 * Loops({ transactionalId: 'clx1234abc' }) // AUTH_LOOPS_KEY=...
 */
export function Loops(options: LoopsOptions): EmailConfig {
  const { baseUrl = 'https://app.loops.so', timeout, transactionalId, ...rest } = options ?? ({} as LoopsOptions);
  if (typeof transactionalId !== 'string' || transactionalId.length === 0) {
    throw new TypeError('Loops needs `transactionalId`: the id of the transactional e-mail that carries the sign-in link.');
  }
  return Email({
    id: 'loops',
    name: 'Loops',
    async sendVerificationRequest(params) {
      const apiKey = requireApiKey(params, 'Loops');
      await postToVendor({
        vendor: 'Loops',
        url: endpoint(baseUrl, '/api/v1/transactional'),
        headers: { authorization: `Bearer ${apiKey}` },
        body: { json: { transactionalId, email: params.identifier, dataVariables: { url: params.url } } },
        secret: apiKey,
        timeout,
        refusal: loopsRefusal,
      });
    },
    ...rest,
  });
}
