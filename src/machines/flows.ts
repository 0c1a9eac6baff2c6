// Which flow machine runs a provider: its own, if it brings one, else the built-in one for its type.
import { InvalidProvider } from '../core/errors.js';
import type { ResolvedProvider } from '../core/provider.js';
import type { FlowDefinition } from './contract.js';
import { credentialsFlow } from '../flows/credentials/machine.js';
import { emailFlow } from './email.js';
import { oauthFlow } from './oauth.js';
import { webauthnFlow } from '../flows/webauthn/machine.js';

const builtIn: Readonly<Partial<Record<string, FlowDefinition>>> = {
  credentials: credentialsFlow as unknown as FlowDefinition,
  oauth: oauthFlow as unknown as FlowDefinition,
  oidc: oauthFlow as unknown as FlowDefinition,
  webauthn: webauthnFlow as unknown as FlowDefinition,
  email: emailFlow as unknown as FlowDefinition,
};

export function flowFor(provider: ResolvedProvider): FlowDefinition {
  const flow = provider.flow ?? builtIn[provider.type];
  if (!flow) throw new InvalidProvider(`Provider "${provider.id}" has type "${provider.type}", which has no flow.`);
  return flow;
}
