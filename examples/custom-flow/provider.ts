// The EmailCode provider: sign in with a six-digit code sent by e-mail, run by the custom flow in machine.ts.
import { emailCodeFlow } from './machine.js';

export interface EmailCodeOptions {
  /** Delivers the code (an e-mail, a webhook, ...). A throw ends the sign-in as EmailSignInError. */
  send(params: { email: string; code: string }): void | Promise<void>;
  id?: string;
  name?: string;
}

/**
 * A provider whose flow mails a one-time code and signs in whoever types it back within 10 minutes. Needs an
 * adapter (the code's single-use token is a verification token).
 *
 * @example
 * providers: [EmailCode({ send: ({ email, code }) => mailer.send(email, `Your code: ${code}`) })]
 */
export function EmailCode(options: EmailCodeOptions) {
  return {
    id: 'email-code',
    name: 'E-mail code',
    ...options,
    type: 'email-code' as const,
    flow: emailCodeFlow,
    // The built-in sign-in page renders these as the form that POSTs signin/:id.
    formFields: { email: { label: 'Email', type: 'email', autocomplete: 'email', placeholder: 'you@example.com', required: true } },
  };
}
