// Sign in with Apple. The client secret is a short-lived ES256 JWT the application signs with its key.
import { definePreset, type OIDCConfig, type OIDCUserConfig } from '../oauth.js';

type AppleBoolean = boolean | 'true' | 'false';

/** ID token claims, plus the `user` form field Apple posts on the very first sign-in only. */
export interface AppleProfile {
  iss: string;
  aud: string;
  sub: string;
  iat: number;
  exp: number;
  nonce?: string;
  nonce_supported?: boolean;
  email?: string;
  email_verified?: AppleBoolean;
  /** True for a relay address (`...@privaterelay.appleid.com`). */
  is_private_email?: AppleBoolean;
  /** 0 unsupported, 1 unknown, 2 likely real. */
  real_user_status?: 0 | 1 | 2;
  auth_time?: number;
  /** The JSON `user` field of the first form_post callback, which the OAuth flow adds here. Not signed: a name at most. */
  user?: { name?: { firstName?: string; lastName?: string }; email?: string };
  [claim: string]: unknown;
}

const preset = /* @__PURE__ */ definePreset<AppleProfile>({
  id: 'apple',
  name: 'Apple',
  type: 'oidc',
  issuer: 'https://appleid.apple.com',
  wellKnown: 'https://appleid.apple.com/.well-known/openid-configuration',
  // Apple only returns the name and e-mail with form_post, so the callback arrives as a POST.
  authorization: { url: 'https://appleid.apple.com/auth/authorize', params: { scope: 'name email', response_mode: 'form_post' } },
  token: 'https://appleid.apple.com/auth/token',
  jwks_endpoint: 'https://appleid.apple.com/auth/keys',
  client: { token_endpoint_auth_method: 'client_secret_post' },
  checks: ['nonce', 'state'],
  profile: (p) => {
    const name = [p.user?.name?.firstName, p.user?.name?.lastName].filter(Boolean).join(' ');
    // The e-mail comes from the signed ID token only: the form field is whatever the browser posted.
    return { id: p.sub, name: name || null, email: p.email ?? null, image: null };
  },
  style: { brandColor: '#000000' },
});

/**
 * Sign in with Apple. Reads `AUTH_APPLE_ID` (the Services ID) and `AUTH_APPLE_SECRET` (the JWT).
 *
 * @example
 * Apple({ clientSecret: await signAppleClientSecret() })
 */
export default function Apple(options?: OIDCUserConfig<AppleProfile>): OIDCConfig<AppleProfile> {
  return preset(options);
}
