// The exported provider-id unions and the Profile type. The type assertions are checked by `tsc` (the project's
// type check covers test/); the runtime checks keep the hand-listed e-mail ids in step with the factories.
import { describe, expect, expectTypeOf, it } from 'vitest';
import type { Profile } from '../../src/core/types.js';
import type {
  BuiltInProviderType, CredentialsProviderId, EmailProviderId, OAuthProviderId, OAuthProviderType, ProviderId, RedirectableProviderType, WebAuthnProviderId,
} from '../../src/index.js';
import { catalogue, Credentials, Email, ForwardEmail, Loops, Mailgun, Nodemailer, Passkey, Postmark, Resend, SendGrid, WebAuthn } from '../../src/providers/index.js';

// Every e-mail id, exhaustively: adding one to EmailProviderId without this list (or the reverse) fails the type check.
const EMAIL_IDS = ['email', 'nodemailer', 'resend', 'sendgrid', 'postmark', 'mailgun', 'forwardemail', 'loops'] as const satisfies readonly EmailProviderId[];
expectTypeOf<Exclude<EmailProviderId, (typeof EMAIL_IDS)[number]>>().toEqualTypeOf<never>();

describe('provider-id unions', () => {
  it('OAuthProviderId is exactly the catalogue\'s ids (derived from its map, so new presets join it)', () => {
    expectTypeOf<'github'>().toMatchTypeOf<OAuthProviderId>();
    expectTypeOf<'microsoft-entra-id'>().toMatchTypeOf<OAuthProviderId>();
    expectTypeOf<'42-school'>().toMatchTypeOf<OAuthProviderType>();
    expectTypeOf<'no-such-provider'>().not.toMatchTypeOf<OAuthProviderId>();
    expectTypeOf<'credentials'>().not.toMatchTypeOf<OAuthProviderId>();
    const ids: OAuthProviderId[] = ['github', 'google', 'zoho', 'hydra', 'ory-hydra'];
    for (const id of ids) expect(catalogue[id]).toBeTypeOf('function');
    // Each key of the catalogue is the id its preset gives a provider (hydra is Auth.js's id for ory-hydra).
    for (const [id, factory] of Object.entries(catalogue)) expect(id === 'ory-hydra' ? 'hydra' : id).toBe(factory({ clientId: 'x', clientSecret: 'y', issuer: 'https://idp.test' }).id);
  });

  it('RedirectableProviderType is credentials and the e-mail providers; BuiltInProviderType adds OAuth and WebAuthn', () => {
    expectTypeOf<CredentialsProviderId | EmailProviderId>().toEqualTypeOf<RedirectableProviderType>();
    expectTypeOf<RedirectableProviderType | OAuthProviderId | WebAuthnProviderId>().toEqualTypeOf<BuiltInProviderType>();
    expectTypeOf<'passkey'>().toMatchTypeOf<BuiltInProviderType>();
    expectTypeOf<'github'>().not.toMatchTypeOf<RedirectableProviderType>();
    // ProviderId still takes a custom provider's id.
    expectTypeOf<'my-own-flow'>().toMatchTypeOf<ProviderId>();
  });

  it('the hand-listed e-mail, credentials and WebAuthn ids are the factories\' own', () => {
    const server = { host: 'localhost', port: 25 };
    const email = [Email({ server }), Nodemailer({ server }), Resend({ apiKey: 'k' }), SendGrid({ apiKey: 'k' }), Postmark({ apiKey: 'k' }), Mailgun({ apiKey: 'k', domain: 'mg.test' }), ForwardEmail({ apiKey: 'k' }), Loops({ apiKey: 'k', transactionalId: 't' })];
    expect(email.map((p) => p.id).sort()).toEqual([...EMAIL_IDS].sort());
    expect(Credentials({ authorize: async () => null }).id satisfies string).toBe('credentials' satisfies CredentialsProviderId);
    const webauthn: WebAuthnProviderId[] = ['webauthn', 'passkey'];
    expect([WebAuthn().id, Passkey().id]).toEqual(webauthn);
  });
});

describe('Profile', () => {
  it('types every standard OIDC claim of the spec', () => {
    expectTypeOf<Profile['middle_name']>().toEqualTypeOf<string | null | undefined>();
    expectTypeOf<Profile['profile']>().toEqualTypeOf<string | null | undefined>();
    expectTypeOf<Profile['website']>().toEqualTypeOf<string | null | undefined>();
    expectTypeOf<Profile['gender']>().toEqualTypeOf<string | null | undefined>();
    expectTypeOf<Profile['birthdate']>().toEqualTypeOf<string | null | undefined>();
    expectTypeOf<Profile['zoneinfo']>().toEqualTypeOf<string | null | undefined>();
    expectTypeOf<Profile['locale']>().toEqualTypeOf<string | null | undefined>();
    expectTypeOf<Profile['phone_number']>().toEqualTypeOf<string | null | undefined>();
    expectTypeOf<Profile['updated_at']>().toEqualTypeOf<Date | string | number | null | undefined>();
    expectTypeOf<NonNullable<Profile['address']>['postal_code']>().toEqualTypeOf<string | null | undefined>();
    expectTypeOf<NonNullable<Profile['address']>['country']>().toEqualTypeOf<string | null | undefined>();
    expectTypeOf<Profile['email_verified']>().toEqualTypeOf<boolean | null | undefined>();
    // A full set of claims, as an OpenID Provider's user-info answers, is a Profile; any other claim is too.
    const claims = {
      sub: '248289761001', name: 'Jane Doe', given_name: 'Jane', family_name: 'Doe', middle_name: 'Q', nickname: 'JD', preferred_username: 'j.doe',
      profile: 'https://example.test/jane', picture: 'https://example.test/jane.jpg', website: 'https://jane.test', email: 'jane@example.test',
      email_verified: true, gender: 'female', birthdate: '0000-10-31', zoneinfo: 'America/Los_Angeles', locale: 'en-US', phone_number: '+1 555 0100',
      updated_at: 1311280970, address: { formatted: '1 Main St', street_address: '1 Main St', locality: 'Anytown', region: 'CA', postal_code: '90210', country: 'US' },
      'https://example.test/roles': ['admin'],
    } satisfies Profile;
    expect(Object.keys(claims)).toHaveLength(20);
  });
});
