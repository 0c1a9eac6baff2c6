// Turns a raw e-mail as received over SMTP into what a test asserts on: decoded text, HTML and the links in them
// (test-peers.md §2). A small MIME walk, not a general parser: UTF-8, quoted-printable, base64, multipart.
import { decodeHtmlEntities } from './html-form.js';

/**
 * Decodes quoted-printable (RFC 2045 §6.7): drops soft line breaks (`=\r\n`), turns `=XX` into bytes, reads the
 * bytes as UTF-8.
 *
 * @example decodeQuotedPrintable('a=3Db&c=\r\nd') // 'a=b&cd'
 */
export function decodeQuotedPrintable(input: string): string {
  const joined = input.replace(/=\r?\n/g, '');
  const chunks: Buffer[] = [];
  for (const m of joined.matchAll(/((?:=[0-9A-Fa-f]{2})+)|([^=]+|=)/g)) {
    chunks.push(m[1] ? Buffer.from(m[1].replace(/=/g, ''), 'hex') : Buffer.from(m[2], 'utf8'));
  }
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * Every http(s) link in a text, in order, without duplicates. Trailing sentence punctuation is not part of a link.
 *
 * @example extractLinks('Sign in: https://app.test/cb?token=a&email=x%40y.') // ['https://app.test/cb?token=a&email=x%40y']
 */
export function extractLinks(text: string): string[] {
  const links: string[] = [];
  for (const [found] of text.matchAll(/https?:\/\/[^\s"'<>]+/g)) {
    let link = found.replace(/[.,;:!?]+$/, '');
    if (link.endsWith(')') && !link.includes('(')) link = link.slice(0, -1);
    if (!links.includes(link)) links.push(link);
  }
  return links;
}

/** A decoded message. */
export interface DecodedMail {
  /** Header values by lower-case name (first occurrence, unfolded, encoded words decoded). */
  headers: Record<string, string>;
  subject: string;
  /** The text/plain parts, decoded; the HTML when there is no text part. */
  text: string;
  /** The text/html parts, decoded ('' when none). */
  html: string;
  /** Links from the text, then any further ones from the HTML (entities decoded, e.g. `&amp;` -> `&`). */
  links: string[];
}

function splitMessage(raw: string): { headers: Record<string, string>; body: string } {
  const end = /\r?\n\r?\n/.exec(raw);
  const head = end ? raw.slice(0, end.index) : raw;
  const body = end ? raw.slice(end.index + end[0].length) : '';
  const headers: Record<string, string> = {};
  // Folded header lines continue with leading whitespace (RFC 5322 §2.2.3).
  for (const line of head.replace(/\r?\n[ \t]+/g, ' ').split(/\r?\n/)) {
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    const name = line.slice(0, colon).trim().toLowerCase();
    if (!(name in headers)) headers[name] = decodeEncodedWords(line.slice(colon + 1).trim());
  }
  return { headers, body };
}

// RFC 2047 encoded words, as nodemailer writes non-ASCII subjects and names.
function decodeEncodedWords(value: string): string {
  return value
    .replace(/(\?=)\s+(=\?)/g, '$1$2')
    .replace(/=\?([^?]+)\?([QqBb])\?([^?]*)\?=/g, (_whole, _charset: string, kind: string, text: string) =>
      kind.toUpperCase() === 'B' ? Buffer.from(text, 'base64').toString('utf8') : decodeQuotedPrintable(text.replace(/_/g, ' ')),
    );
}

function parameter(header: string, name: string): string | undefined {
  const m = new RegExp(`;\\s*${name}="?([^";]+)"?`, 'i').exec(header);
  return m?.[1];
}

function decodeBody(body: string, encoding: string): string {
  switch (encoding.toLowerCase()) {
    case 'quoted-printable':
      return decodeQuotedPrintable(body);
    case 'base64':
      return Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8');
    default:
      return body;
  }
}

function walk(raw: string, text: string[], html: string[]): void {
  const { headers, body } = splitMessage(raw);
  const contentType = headers['content-type'] ?? 'text/plain';
  const type = contentType.split(';')[0].trim().toLowerCase();
  if (type.startsWith('multipart/')) {
    const boundary = parameter(contentType, 'boundary');
    if (!boundary) return;
    const delimiter = `--${boundary}`;
    // Parts sit between delimiter lines; the text before the first one and after the closing one is ignored.
    const sections = body.split(new RegExp(`\\r?\\n?${delimiter.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?:--)?[ \\t]*\\r?\\n?`));
    for (const part of sections.slice(1, -1)) walk(part, text, html);
    return;
  }
  if (/^attachment/i.test(headers['content-disposition'] ?? '')) return;
  const decoded = decodeBody(body, headers['content-transfer-encoding'] ?? '7bit');
  if (type === 'text/plain') text.push(decoded);
  else if (type === 'text/html') html.push(decoded);
}

/**
 * Decodes a raw RFC 5322 message (headers, MIME parts, transfer encodings) and collects its links.
 *
 * @example const { subject, links } = decodeMail(message.raw);
 */
export function decodeMail(raw: string): DecodedMail {
  const { headers } = splitMessage(raw);
  const text: string[] = [];
  const html: string[] = [];
  walk(raw, text, html);
  const htmlText = html.join('\n');
  const links = extractLinks(text.join('\n'));
  for (const link of extractLinks(htmlText).map(decodeHtmlEntities)) if (!links.includes(link)) links.push(link);
  return { headers, subject: headers.subject ?? '', text: text.length > 0 ? text.join('\n') : htmlText, html: htmlText, links };
}
