// Hugging Face (OpenID Connect, huggingface.co).
import { definePreset, type OIDCConfig, type OIDCUserConfig } from '../oauth.js';

/** ID token claims with `openid profile email`. */
export interface HuggingfaceProfile {
  sub: string;
  name?: string;
  preferred_username: string;
  profile?: string;
  picture?: string;
  website?: string;
  email?: string;
  email_verified?: boolean;
  isPro?: boolean;
  orgs?: { sub: string; name: string; preferred_username: string; picture?: string; isEnterprise?: boolean }[];
  [claim: string]: unknown;
}

const preset = /* @__PURE__ */ definePreset<HuggingfaceProfile>({
  id: 'huggingface',
  name: 'Hugging Face',
  type: 'oidc',
  issuer: 'https://huggingface.co',
  authorization: { params: { scope: 'openid profile email' } },
  checks: ['pkce', 'state'],
  profile: (p) => ({ id: p.sub, name: p.name ?? p.preferred_username, email: p.email ?? null, image: p.picture ?? null }),
  style: { brandColor: '#ffd21e' },
});

/**
 * Sign in with Hugging Face. Reads `AUTH_HUGGINGFACE_ID` / `AUTH_HUGGINGFACE_SECRET`.
 *
 * @example
 * Huggingface({ authorization: { params: { scope: 'openid profile email read-repos' } } })
 */
export default function Huggingface(options?: OIDCUserConfig<HuggingfaceProfile>): OIDCConfig<HuggingfaceProfile> {
  return preset(options);
}
