// What every provider has in common, and the provider union the configuration accepts.
import type { ProviderType } from './types.js';

export interface CommonProviderOptions {
  /** Unique among `providers`; part of the URL (`/signin/:id`, `/callback/:id`). */
  id: string;
  /** Label on the built-in sign-in page. */
  name: string;
  /** A built-in type, or any name for a provider that brings its own `flow`. */
  type: ProviderType | (string & {});
  /** A custom provider brings its own flow, made with `defineFlow` (authchart); built-in types use the built-in flows. */
  flow?: { readonly machine: unknown; readonly version: number };
}

/** Any provider object, or a provider factory called without options (`providers: [GitHub]`). */
export type AnyProvider = CommonProviderOptions | ((options?: any) => CommonProviderOptions);

/** A provider as authchart holds it after configuration: always an object. */
export type ResolvedProvider = CommonProviderOptions & Record<string, unknown>;

/**
 * Whether a provider is a Password provider (authchart keeps and checks the password): a credentials provider that
 * carries `password` settings instead of an `authorize`. Its flow is the built-in password sign-in.
 *
 * @example
 * isPasswordProvider(Password()) // true
 */
export function isPasswordProvider(provider: { type: string; password?: unknown }): boolean {
  return provider.type === 'credentials' && typeof provider.password === 'object' && provider.password !== null;
}
