// The HTTP API e-mail senders: one Email provider per vendor, each a plain `fetch` to the vendor's documented API.
export { Resend } from './resend.js';
export { SendGrid } from './sendgrid.js';
export { Postmark, type PostmarkOptions } from './postmark.js';
export { Mailgun, type MailgunOptions } from './mailgun.js';
export { ForwardEmail } from './forwardemail.js';
export { Loops, type LoopsOptions } from './loops.js';
export { EmailApiError, EMAIL_API_TIMEOUT, type EmailApiOptions } from './http-api.js';
