// `authchart/providers/email`: magic-link and code sign-in by e-mail, through Nodemailer or a vendor's HTTP API
// (Resend, SendGrid, Postmark, Mailgun, Forward Email, Loops).
export { Email, Nodemailer, normalizeEmailAddress, sendMagicLinkMail, type EmailConfig, type EmailUserConfig, type EmailServer, type SendVerificationRequestParams, type EmailCodeOptions } from '../email.js';
export * from '../email-senders/index.js';
// For a custom `normalizeIdentifier` or `authorize`: the one ASCII spelling of an address's domain.
export { asciiEmailDomain } from '../../core/email-address.js';
