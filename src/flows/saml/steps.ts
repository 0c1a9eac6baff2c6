// The SAML flow's actors, each given the request's deps: the connection is the provider's (sso/saml-provider.ts).
import { InvalidProvider } from '../../core/errors.js';
import type { Account, User } from '../../core/types.js';
import { samlConnectionOf, type SamlConnection } from '../../sso/saml-provider.js';
import { checkSsoAddress } from '../../sso/provision.js';
import type { FlowDeps } from '../runtime/contract.js';
import { prepareAuthnRequest, type PreparedSamlRequest } from './request.js';
import { spendAssertion } from './replay.js';
import { validateSamlResponse, type SamlAssertion } from './validate.js';

/** The connection this flow runs for. */
export function connectionOf(deps: FlowDeps): SamlConnection {
  const connection = samlConnectionOf(deps.provider);
  if (!connection) throw new InvalidProvider(`Provider "${deps.provider.id}" is no SAML connection.`);
  return connection;
}

export const prepare = (deps: FlowDeps): Promise<PreparedSamlRequest> => prepareAuthnRequest(connectionOf(deps), deps.req.authUrl, deps.req.config.secrets);

export const validate = (deps: FlowDeps, posted: { samlResponse: unknown; requestId: string | undefined }): Promise<SamlAssertion> =>
  validateSamlResponse(connectionOf(deps), deps.req.authUrl, posted);

export const spend = (deps: FlowDeps, assertion: SamlAssertion, at: number): Promise<'fresh' | 'replayed'> => spendAssertion(deps.store, assertion, at);

/** The asserted address must be of a verified domain of this connection's organization (throws SsoAddressRefused). */
export async function admit(deps: FlowDeps, assertion: SamlAssertion): Promise<void> {
  await checkSsoAddress(deps.req.config, connectionOf(deps), assertion.email);
}

/** The identity a checked assertion proves: the account is the NameID under the connection's provider id. */
export function identityOf(providerId: string, assertion: SamlAssertion): { user: User; account: Account } {
  return {
    user: { email: assertion.email, name: assertion.name },
    account: { provider: providerId, type: 'saml', providerAccountId: assertion.nameId },
  };
}
