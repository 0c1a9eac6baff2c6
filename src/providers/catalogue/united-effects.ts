// United Effects Core EOS (OpenID Connect). The issuer names the auth group: `https://auth.unitedeffects.com/<group>`.
import { definePreset, mergeProviderOptions, type OIDCConfig, type OIDCUserConfig } from '../oauth.js';

/** ID token claims with `openid email profile`. */
export interface UnitedEffectsProfile {
  sub: string;
  email: string;
  email_verified?: boolean;
  name?: string;
  given_name?: string;
  family_name?: string;
  picture?: string;
  group?: string;
  [claim: string]: unknown;
}

const preset = /* @__PURE__ */ definePreset<UnitedEffectsProfile>({
  id: 'united-effects',
  name: 'United Effects',
  type: 'oidc',
  authorization: { params: { scope: 'openid email profile' } },
  checks: ['pkce', 'state', 'nonce'],
  profile: (p) => ({ id: p.sub, name: p.name ?? null, email: p.email ?? null, image: p.picture ?? null }),
  style: { brandColor: '#1f2d3d' },
});

/**
 * Sign in with United Effects. Reads `AUTH_UNITED_EFFECTS_ID`, `_SECRET` and `_ISSUER`. An `issuer` given here is
 * also sent as the `resource` the access token is for (the auth group's API).
 *
 * @example
 * UnitedEffects({ issuer: 'https://auth.unitedeffects.com/my-group' })
 */
export default function UnitedEffects(options?: OIDCUserConfig<UnitedEffectsProfile>): OIDCConfig<UnitedEffectsProfile> {
  if (!options?.issuer) return preset(options);
  return mergeProviderOptions(preset({ authorization: { params: { resource: options.issuer } } }), options);
}
