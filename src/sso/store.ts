// The adapter's SSO methods, as the SSO layer calls them (checked at start once `sso` is configured).
import type { WrappedAdapter } from '../core/adapter-wrap.js';
import type { InternalConfig } from '../core/config.js';
import { MissingAdapter } from '../core/errors.js';
import type { SsoAdapterMethods } from './types.js';

export type SsoStore = { [K in keyof SsoAdapterMethods]-?: NonNullable<WrappedAdapter[K]> };

/** The adapter's SSO methods; MissingAdapter when `sso` is not configured. */
export function ssoStore(config: InternalConfig): SsoStore {
  const adapter = config.adapter;
  if (!config.sso || !adapter?.getSsoConnection) throw new MissingAdapter('SSO is not configured: set the `sso` option with an adapter that keeps connections and domains.');
  return adapter as unknown as SsoStore;
}
