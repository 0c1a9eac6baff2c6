// `identity-server4`: IdentityServer4 (end of support 2022), kept under its Auth.js id; Duende IdentityServer succeeds it.
import { type OIDCConfig, type OIDCUserConfig } from '../oauth.js';
import { warnDeprecatedPreset } from './_http.js';
import DuendeIdentityServer6, { type DuendeISUser } from './duende-identity-server6.js';

/** The ID token claims: those of {@link DuendeISUser}. */
export type IdentityServer4Profile = DuendeISUser;

/**
 * @deprecated Use `DuendeIdentityServer6`. This is it under the old id `identity-server4` (reads
 * `AUTH_IDENTITY_SERVER4_ID`, `_SECRET`, `_ISSUER`), and warns once.
 *
 * @example
 * IdentityServer4({ issuer: 'https://id.acme.test' })
 */
export default function IdentityServer4(options?: OIDCUserConfig<IdentityServer4Profile>): OIDCConfig<IdentityServer4Profile> {
  warnDeprecatedPreset('identity-server4', 'DuendeIdentityServer6 (id "duende-identity-server6")');
  return { ...DuendeIdentityServer6(options), id: options?.id ?? 'identity-server4', name: options?.name ?? 'IdentityServer4' };
}
