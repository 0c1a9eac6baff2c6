// The invitation mail in each of the six shipped languages: who invites the reader to what, the link and the expiry,
// every value escaped in the HTML (an organization's name is the inviter's text).
import { describe, expect, it } from 'vitest';
import { translatorFor } from '../../../src/core/messages/request.js';
import { invitationMessage } from '../../../src/flows/organizations/invitation-mail.js';

const mail = { to: 'bob@example.test', url: 'https://app.example/auth/invitations/abc', organizationName: 'Acme <b>&</b>', inviter: 'Ada', role: 'admin', expires: new Date('2026-12-05T10:00:00Z') };

describe('the invitation mail', () => {
  it.each(['en', 'de', 'fr', 'es', 'ja', 'ar'])('%s: the inviter, the organization, the role, the link; escaped HTML in the right direction', async (locale) => {
    const i18n = await translatorFor(locale, {});
    const { subject, text, html } = invitationMessage(mail, 'app.example', i18n);
    expect(subject).toContain('Ada');
    expect(subject).toContain(mail.organizationName);
    expect(text).toContain(mail.url);
    expect(text).toContain('admin');
    expect(html).toContain('Acme &lt;b&gt;&amp;&lt;/b&gt;');
    expect(html).not.toContain('<b>&</b>');
    expect(html).toContain(`lang="${locale}"`);
    expect(html).toContain(`dir="${locale === 'ar' ? 'rtl' : 'ltr'}"`);
  });

  it('is written in the language asked for, not English, for every other locale', async () => {
    const english = invitationMessage(mail, 'app.example', await translatorFor('en', {})).text;
    for (const locale of ['de', 'fr', 'es', 'ja', 'ar']) expect(invitationMessage(mail, 'app.example', await translatorFor(locale, {})).text).not.toBe(english);
  });
});
