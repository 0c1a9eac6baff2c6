// Just enough typing of oidc-provider (which ships no declarations) for our test harness; deliberately loose
// where the harness only passes values through.
declare module 'oidc-provider' {
  import type { IncomingMessage, ServerResponse } from 'node:http';

  /** Client metadata as registered with the OP (snake_case, RFC 7591). */
  export interface ClientMetadata {
    client_id: string;
    client_secret?: string;
    redirect_uris?: string[];
    response_types?: string[];
    grant_types?: string[];
    token_endpoint_auth_method?: string;
    [key: string]: unknown;
  }

  export interface Grant {
    readonly jti: string;
    accountId?: string;
    clientId?: string;
    addOIDCScope(scope: string): void;
    addOIDCClaims(claims: string[]): void;
    addResourceScope(indicator: string, scope: string): void;
    save(ttl?: number): Promise<string>;
  }

  export interface GrantConstructor {
    new (properties: { accountId?: string; clientId?: string }): Grant;
    find(id: string): Promise<Grant | undefined>;
  }

  export interface AccessToken {
    accountId?: string;
    clientId?: string;
    scope?: string;
    isValid: boolean;
    isExpired: boolean;
  }

  export interface OIDCContext {
    provider: Provider;
    client: { clientId: string; [key: string]: unknown };
    session: { accountId?: string; grantIdFor(clientId: string, value?: string): string | undefined };
    result?: { consent?: { grantId?: string }; [key: string]: unknown };
    params: Record<string, unknown>;
    requestParamScopes: Set<string>;
    requestParamOIDCScopes: Set<string>;
    requestParamClaims: Set<string>;
    resourceServers: Record<string, { scopes: Set<string> }>;
    [key: string]: unknown;
  }

  export interface KoaContextWithOIDC {
    oidc: OIDCContext;
    type: string;
    body: unknown;
    status: number;
    [key: string]: unknown;
  }

  export interface Account {
    accountId: string;
    claims(use: string, scope: string, claims: unknown, rejected: string[]): Promise<Record<string, unknown>> | Record<string, unknown>;
  }

  /** The configuration object; typed loosely, oidc-provider validates it at construction. */
  export type Configuration = Record<string, unknown>;

  export class Provider {
    constructor(issuer: string, configuration?: Configuration);
    readonly issuer: string;
    proxy: boolean;
    callback(): (req: IncomingMessage, res: ServerResponse) => void;
    on(event: string, listener: (...args: unknown[]) => void): this;
    readonly Grant: GrantConstructor;
    readonly AccessToken: { find(value: string): Promise<AccessToken | undefined> };
  }

  export default Provider;
}
