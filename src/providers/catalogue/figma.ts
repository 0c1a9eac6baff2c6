// Figma, OAuth 2. Its token answer has no `token_type`; `current_user:read` is the scope that reads /v1/me.
import { definePreset, type OAuthConfig, type OAuthUserConfig } from '../oauth.js';
import { withTokenType } from './_http.js';

/** `GET https://api.figma.com/v1/me`. */
export interface FigmaProfile {
  id: string;
  email: string;
  handle: string;
  img_url: string;
}

const preset = /* @__PURE__ */ definePreset<FigmaProfile>({
  id: 'figma',
  name: 'Figma',
  type: 'oauth',
  authorization: { url: 'https://www.figma.com/oauth', params: { scope: 'current_user:read' } },
  token: { url: 'https://api.figma.com/v1/oauth/token', conform: withTokenType },
  userinfo: 'https://api.figma.com/v1/me',
  checks: ['pkce', 'state'],
  profile: (p) => ({ id: p.id, name: p.handle, email: p.email ?? null, image: p.img_url ?? null }),
  style: { brandColor: '#f24e1e' },
});

/**
 * Sign in with Figma. Reads `AUTH_FIGMA_ID` / `AUTH_FIGMA_SECRET`.
 *
 * @example
 * Figma({ authorization: { params: { scope: 'current_user:read file_content:read' } } })
 */
export default function Figma(options?: OAuthUserConfig<FigmaProfile>): OAuthConfig<FigmaProfile> {
  return preset(options);
}
