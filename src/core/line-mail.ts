// A plain mail made of lines, as the library's own short mails are (sign-up, invitations): the text is the lines, the
// HTML a paragraph per line, a line that is a URL as its link, an empty line as a gap. Every value is escaped, and the
// page carries the reader's language and writing direction.
import { escapeHtml as h } from './html-escape.js';
import type { Translator } from './messages/translator.js';

export function lineMail(subject: string, lines: readonly string[], i18n: Pick<Translator, 'locale' | 'dir'>): { subject: string; text: string; html: string } {
  const text = `${lines.join('\n')}\n`;
  const body = lines.map((line) => (/^https?:\/\//.test(line) ? `<p><a href="${h(line)}">${h(line)}</a></p>` : line ? `<p>${h(line)}</p>` : '')).join('\n');
  const html = `<!doctype html>\n<html lang="${h(i18n.locale)}" dir="${i18n.dir}">\n<head><meta charset="utf-8"><title>${h(subject)}</title></head>\n<body style="font-family:Helvetica,Arial,sans-serif">\n${body}\n</body>\n</html>\n`;
  return { subject, text, html };
}
