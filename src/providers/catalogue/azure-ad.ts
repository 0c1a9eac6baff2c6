// `azure-ad`: Auth.js's former id for Microsoft Entra ID, kept so that existing accounts and callback URLs work.
import { type OIDCConfig, type OIDCUserConfig } from '../oauth.js';
import { warnDeprecatedPreset } from './_http.js';
import MicrosoftEntraID, { type MicrosoftEntraIDProfile } from './microsoft-entra-id.js';

/** The ID token claims: those of {@link MicrosoftEntraIDProfile}. */
export type AzureADProfile = MicrosoftEntraIDProfile;

/**
 * @deprecated Use `MicrosoftEntraID` (id `microsoft-entra-id`). This is it under the old id `azure-ad` (reads
 * `AUTH_AZURE_AD_ID`, `_SECRET`, `_ISSUER`), and warns once.
 *
 * @example
 * AzureAD({ issuer: `https://login.microsoftonline.com/${tenantId}/v2.0` })
 */
export default function AzureAD(options?: OIDCUserConfig<AzureADProfile>): OIDCConfig<AzureADProfile> {
  warnDeprecatedPreset('azure-ad', 'MicrosoftEntraID (id "microsoft-entra-id")');
  return { ...MicrosoftEntraID(options), id: options?.id ?? 'azure-ad', name: options?.name ?? 'Azure Active Directory' };
}
