// The `sso` option: enterprise SSO per organization. Connections and domains are data (the adapter's), so the option
// holds only what the code needs: how DNS is asked when a domain's claim is proven.

/** Looks up the TXT records of a host name, as `node:dns/promises` `resolveTxt` does (each record in chunks). */
export type ResolveTxt = (hostname: string) => Promise<string[][]>;

/** The `sso` option. Needs `organizations` and an adapter with the SSO methods (PostgresAdapter has them). */
export interface SsoOptions {
  /**
   * How a domain's TXT records are read when its claim is verified. Default: `resolveTxt` of `node:dns/promises`
   * (the system's resolver). A test, or an app that must ask a given server, passes its own.
   *
   * @example
   * import { Resolver } from 'node:dns/promises'
   * const resolver = new Resolver(); resolver.setServers(['127.0.0.1:5353'])
   * sso: { resolveTxt: (host) => resolver.resolveTxt(host) }
   */
  resolveTxt?: ResolveTxt;
}
