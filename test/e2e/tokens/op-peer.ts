// What both token testbeds need from the real OP: a count of the refresh-token grants it answered and refused, and
// the OIDC provider that asks it for a refresh token.
import type { KoaContextWithOIDC } from 'oidc-provider';
import { OIDC } from '../../../src/providers/oauth.js';
import type { OidcProviderHarness } from '../peers/oidc.js';

/** Refresh-token grants the OP answered (`ok`) and refused (`refused`), counted from its events. */
export function countRefreshGrants(op: OidcProviderHarness): { ok: number; refused: number } {
  const grants = { ok: 0, refused: 0 };
  const isRefresh = (args: unknown[]) => (args[0] as KoaContextWithOIDC).oidc.params?.grant_type === 'refresh_token';
  op.provider.on('grant.success', (...args: unknown[]) => {
    if (isRefresh(args)) grants.ok += 1;
  });
  op.provider.on('grant.error', (...args: unknown[]) => {
    if (isRefresh(args)) grants.refused += 1;
  });
  return grants;
}

/** The OIDC provider `oidc` of the OP, asking for a refresh token (offline_access yields one only with prompt=consent). */
export function offlineOidc(op: OidcProviderHarness, extra: Partial<Parameters<typeof OIDC>[0]> = {}): ReturnType<typeof OIDC> {
  return OIDC({
    id: 'oidc',
    name: 'Test OP',
    issuer: op.issuer,
    clientId: op.clientId,
    clientSecret: op.clientSecret,
    checks: ['pkce', 'state', 'nonce'],
    authorization: { params: { scope: 'openid email profile offline_access', prompt: 'consent' } },
    ...extra,
  });
}

/** Revokes a refresh token at the OP (its revocation endpoint, as the client); the HTTP status it answered. */
export async function revokeAtOp(op: OidcProviderHarness, refreshToken: string): Promise<number> {
  const res = await fetch(`${op.issuer}/token/revocation`, {
    method: 'POST',
    headers: { authorization: `Basic ${Buffer.from(`${op.clientId}:${op.clientSecret}`).toString('base64')}`, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ token: refreshToken, token_type_hint: 'refresh_token' }),
  });
  return res.status;
}
