// What the e-mail flow reads from its deps: the provider as an e-mail provider, the adapter, the token secrets.
import type { WrappedAdapter } from '../../core/adapter-wrap.js';
import { MissingAdapter } from '../../core/errors.js';
import type { EmailConfig } from '../../providers/email.js';
import type { FlowDeps } from '../runtime/contract.js';

/** The flow's provider, as the e-mail provider it is. */
export function emailProviderOf(deps: FlowDeps): EmailConfig {
  return deps.provider as unknown as EmailConfig;
}

/** The configured adapter; e-mail sign-in cannot run without one. */
export function adapterOf(deps: FlowDeps): WrappedAdapter {
  const adapter = deps.req.config.adapter;
  if (!adapter) throw new MissingAdapter('E-mail sign-in needs an adapter.');
  return adapter;
}

/** The secrets that hash tokens, newest first: the provider's own, else the configuration's. */
export function tokenSecrets(deps: FlowDeps): string[] {
  const own = emailProviderOf(deps).secret;
  const list = own === undefined ? deps.req.config.secrets : Array.isArray(own) ? own : [own];
  const secrets = list.filter((x) => typeof x === 'string' && x.length > 0);
  return secrets.length > 0 ? secrets : deps.req.config.secrets;
}


/**
 * Whether the token is spent with the session (issue.ts) instead of when it is proved: the adapter can look a token
 * up without using it, and has transactions to use it up in. Any other adapter spends it at once, as Auth.js does.
 */
export function defersSpend(deps: FlowDeps): boolean {
  const adapter = deps.req.config.adapter;
  return adapter?.withTransaction !== undefined && adapter.getVerificationToken !== undefined;
}
