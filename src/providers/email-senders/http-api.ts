// What every HTTP e-mail API sender shares: its options, one POST with the vendor's credentials and a bounded
// wait, and a refusal turned into an EmailApiError that carries the vendor's own words (never the API key).
import { envProviderStem } from '../../core/env.js';
import { emailCodeOptions, magicLinkMessage, type EmailUserConfig, type SendVerificationRequestParams } from '../email.js';

/** Options every HTTP API sender takes, beside the e-mail provider's own (`from`, `apiKey`, `maxAge`, ...). */
export interface EmailApiOptions extends EmailUserConfig {
  /** The vendor's API origin (default: its public one). Set it for a proxy, another region, or a test double. */
  baseUrl?: string;
  /** Milliseconds to wait for the vendor's answer before the sign-in fails (default 10 000). */
  timeout?: number;
}

/** How long a sender waits for the vendor by default: a hung API must not hang the sign-in request with it. */
export const EMAIL_API_TIMEOUT = 10_000;
// A refusal's body is read up to this size: enough for any vendor's error JSON, not a memory sink.
const MAX_BODY = 16 * 1024;
// The vendor's message as logged: long enough to be useful, short enough for one log line.
const MAX_MESSAGE = 500;

/**
 * An e-mail API refused the sign-in mail, or could not be reached. The flow ends in `EmailSignInError` with this
 * error as its evidence, and revokes the token it had stored.
 *
 * @example
 * logger: { error: (e) => { if (e.cause?.err instanceof EmailApiError) alert(e.cause.err.vendorMessage) } }
 */
export class EmailApiError extends Error {
  override name = 'EmailApiError';
  /** The vendor, e.g. `Resend`. */
  readonly vendor: string;
  /** The HTTP status of the vendor's answer; absent when there was no answer. */
  readonly status?: number;
  /** What the vendor said (its error message, trimmed), or why there was no answer. */
  readonly vendorMessage: string;

  constructor(vendor: string, vendorMessage: string, status?: number, options?: ErrorOptions) {
    super(status === undefined ? `${vendor}: ${vendorMessage}` : `${vendor} refused the sign-in mail (HTTP ${status}): ${vendorMessage}`, options);
    this.vendor = vendor;
    this.status = status;
    this.vendorMessage = vendorMessage;
  }
}

/** One POST to a vendor's API. */
export interface VendorPost {
  vendor: string;
  url: string;
  headers: Record<string, string>;
  /** A JSON value (sent as `application/json`) or a form (sent as `multipart/form-data`). */
  body: { json: unknown } | { form: FormData };
  /** The API key, so that a vendor echoing it back never gets it into a log. */
  secret: string;
  timeout?: number;
  /**
   * Reads a refusal in the vendor's own terms (an error code beside the message, say), from any answer: it also
   * catches an API that reports some failures with a success status.
   */
  refusal?: (body: unknown) => string | undefined;
}

/**
 * Sends the request and returns the vendor's parsed answer (JSON, or its text, or null when empty). Redirects are
 * refused rather than followed: following one would re-send the credentials and the mail (the magic link in it)
 * to wherever the redirect points.
 *
 * @throws EmailApiError when the vendor answers outside 2xx, reports a refusal, redirects, or does not answer.
 */
export async function postToVendor(req: VendorPost): Promise<unknown> {
  const timeout = req.timeout ?? EMAIL_API_TIMEOUT;
  const headers: Record<string, string> = { accept: 'application/json', ...req.headers };
  let body: string | FormData;
  if ('json' in req.body) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(req.body.json);
  } else body = req.body.form;
  let res: Response;
  try {
    res = await fetch(req.url, { method: 'POST', headers, body, redirect: 'manual', signal: AbortSignal.timeout(timeout) });
  } catch (err) {
    const why = (err as Error)?.name === 'TimeoutError' ? `no answer within ${timeout} ms` : `could not be reached (${(err as Error)?.message ?? err})`;
    throw new EmailApiError(req.vendor, `${why} at ${new URL(req.url).origin}`, undefined, { cause: err });
  }
  if (res.status >= 300 && res.status < 400) {
    await res.body?.cancel();
    throw new EmailApiError(req.vendor, 'redirected the request; a mail API is not followed elsewhere', res.status);
  }
  let text: string;
  try {
    text = await readBounded(res, MAX_BODY);
  } catch (err) {
    throw new EmailApiError(req.vendor, `answer could not be read (${(err as Error)?.message ?? err})`, res.status, { cause: err });
  }
  const parsed = parseBody(text);
  const refused = req.refusal?.(parsed);
  if (!res.ok || refused) {
    throw new EmailApiError(req.vendor, clean(refused ?? messageOf(parsed) ?? res.statusText ?? '', req.secret) || 'no message', res.status);
  }
  return parsed;
}

/**
 * The provider's API key, or an error that names the option and the variable to set.
 *
 * @example const key = requireApiKey(params, 'Resend') // throws when neither apiKey nor AUTH_RESEND_KEY is set
 */
export function requireApiKey(params: SendVerificationRequestParams, vendor: string): string {
  const key = params.provider.apiKey;
  if (typeof key !== 'string' || key.length === 0) {
    throw new EmailApiError(vendor, `no API key: pass \`apiKey\` or set AUTH_${envProviderStem(params.provider.id)}_KEY`);
  }
  return key;
}

/** The standard sign-in mail (subject, text, HTML) for a send, the same one the SMTP sender writes. */
export function signInMail(params: SendVerificationRequestParams): { subject: string; text: string; html: string } {
  return magicLinkMessage({ url: params.url, host: new URL(params.url).host, expires: params.expires, theme: params.theme, messages: params.messages, code: params.code, link: emailCodeOptions(params.provider)?.link });
}

/** `https://api.example.com/` + `/v3/send` without doubling or losing the slash; a proxy path prefix is kept. */
export function endpoint(baseUrl: string, path: string): string {
  return `${baseUrl.replace(/\/+$/, '')}${path}`;
}

/**
 * Splits `Name <address>` (or a bare address) into its parts, for APIs that take them apart.
 *
 * @example mailbox('Example <no-reply@example.com>') // { name: 'Example', email: 'no-reply@example.com' }
 */
export function mailbox(from: string): { name?: string; email: string } {
  const match = /^\s*(?:"?([^"<]*?)"?\s*)?<([^<>\s]+)>\s*$/.exec(from);
  if (!match) return { email: from.trim() };
  const name = match[1]?.trim();
  return name ? { name, email: match[2] } : { email: match[2] };
}

async function readBounded(res: Response, limit: number): Promise<string> {
  if (!res.body) return '';
  const reader = res.body.getReader();
  const decoder = new TextDecoder();
  let text = '';
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    text += decoder.decode(value, { stream: true });
    if (size >= limit) {
      await reader.cancel();
      break;
    }
  }
  return text + decoder.decode();
}

function parseBody(text: string): unknown {
  if (text.trim() === '') return null;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/** The human part of a vendor's error body: `message`/`Message`, `errors[].message`, `error`, or its text. */
function messageOf(body: unknown): string | undefined {
  if (typeof body === 'string') return body.trim() || undefined;
  if (!body || typeof body !== 'object') return undefined;
  const o = body as Record<string, unknown>;
  for (const key of ['message', 'Message', 'error_description']) {
    if (typeof o[key] === 'string' && o[key]) return o[key] as string;
  }
  if (Array.isArray(o.errors)) {
    const messages = o.errors.map((e) => messageOf(e)).filter((m): m is string => Boolean(m));
    if (messages.length > 0) return messages.join('; ');
  }
  if (typeof o.error === 'string' && o.error) return o.error;
  if (o.error && typeof o.error === 'object') return messageOf(o.error);
  return undefined;
}

/** One log line: no control characters (no forged log lines), bounded, and never the key. */
function clean(message: string, secret: string): string {
  let out = message.replace(/[\p{Cc}\p{Cf}]+/gu, ' ').trim();
  if (secret.length >= 4) out = out.split(secret).join('[api key]');
  return out.length > MAX_MESSAGE ? `${out.slice(0, MAX_MESSAGE)}…` : out;
}
