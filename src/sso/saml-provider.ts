// A SAML connection as a provider of the SAML flow (flows/saml/), built at runtime from the stored settings: its id is
// the connection's provider id (`sso-<connection id>`, the account it links and the organization it joins), its type
// `saml` picks the built-in SAML machine, and it carries the connection the machine's steps read.
import type { ResolvedProvider } from '../core/provider.js';
import { ssoProviderId } from './provider-id.js';
import type { SamlConnectionSettings, SsoConnection } from './types.js';

/** A SAML connection as it reaches the flow. */
export type SamlConnection = SsoConnection & SamlConnectionSettings;

/** The provider of a SAML connection: what the SAML flow's deps carry as `provider`. */
export interface SamlProvider extends ResolvedProvider {
  type: 'saml';
  connection: SamlConnection;
}

/**
 * The SAML flow's provider for a connection.
 *
 * @example
 * await handleFlow(req, samlProviderOf(connection), 'signin')
 */
export function samlProviderOf(connection: SamlConnection): SamlProvider {
  return { id: ssoProviderId(connection.id), name: connection.name, type: 'saml', connection } as unknown as SamlProvider;
}

/** The connection of a SAML provider, or null for any other provider. */
export function samlConnectionOf(provider: ResolvedProvider): SamlConnection | null {
  const p = provider as Partial<SamlProvider>;
  return p.type === 'saml' && p.connection?.kind === 'saml' ? p.connection : null;
}
