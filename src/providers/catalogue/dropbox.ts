// Dropbox apps (scoped access).
import { definePreset, type OAuthConfig, type OAuthUserConfig } from '../oauth.js';
import { bearer, fetchJson, userinfoUrl } from './_http.js';

/** `POST /2/users/get_current_account` with `account_info.read`. */
export interface DropboxProfile {
  account_id: string;
  name: { given_name: string; surname: string; familiar_name: string; display_name: string; abbreviated_name: string };
  email: string;
  email_verified: boolean;
  disabled: boolean;
  profile_photo_url?: string;
  country?: string;
  locale: string;
  referral_link: string;
  is_paired: boolean;
  account_type: { '.tag': 'basic' | 'pro' | 'business' };
  [key: string]: unknown;
}

const preset = /* @__PURE__ */ definePreset<DropboxProfile>({
  id: 'dropbox',
  name: 'Dropbox',
  type: 'oauth',
  authorization: {
    url: 'https://www.dropbox.com/oauth2/authorize',
    params: { scope: 'account_info.read', token_access_type: 'offline' },
  },
  token: 'https://api.dropboxapi.com/oauth2/token',
  userinfo: {
    url: 'https://api.dropboxapi.com/2/users/get_current_account',
    // An RPC endpoint: POST, and no body at all (not even `null`) since the call takes no arguments.
    request: ({ tokens, provider }) => fetchJson<DropboxProfile>(userinfoUrl(provider.userinfo), { method: 'POST', headers: bearer(tokens) }),
  },
  profile: (p) => ({ id: p.account_id, name: p.name.display_name, email: p.email, image: p.profile_photo_url ?? null }),
  style: { brandColor: '#0061fe' },
});

/**
 * Sign in with Dropbox. Reads `AUTH_DROPBOX_ID` / `AUTH_DROPBOX_SECRET`.
 *
 * @example
 * providers: [Dropbox()]
 */
export default function Dropbox(options?: OAuthUserConfig<DropboxProfile>): OAuthConfig<DropboxProfile> {
  return preset(options);
}
