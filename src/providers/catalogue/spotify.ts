// Spotify accounts (Web API authorization code flow).
import { definePreset, type OAuthConfig, type OAuthUserConfig } from '../oauth.js';

/** `GET /v1/me` with `user-read-email`. */
export interface SpotifyProfile {
  id: string;
  display_name: string | null;
  email: string;
  images: { url: string; height: number | null; width: number | null }[];
  country?: string;
  product?: string;
  uri: string;
  href: string;
  external_urls: { spotify: string };
  followers?: { href: string | null; total: number };
  [key: string]: unknown;
}

const preset = /* @__PURE__ */ definePreset<SpotifyProfile>({
  id: 'spotify',
  name: 'Spotify',
  type: 'oauth',
  authorization: { url: 'https://accounts.spotify.com/authorize', params: { scope: 'user-read-email' } },
  token: 'https://accounts.spotify.com/api/token',
  userinfo: 'https://api.spotify.com/v1/me',
  profile: (p) => ({ id: p.id, name: p.display_name ?? p.id, email: p.email, image: p.images?.[0]?.url ?? null }),
  style: { brandColor: '#1db954' },
});

/**
 * Sign in with Spotify. Reads `AUTH_SPOTIFY_ID` / `AUTH_SPOTIFY_SECRET`.
 *
 * @example
 * Spotify({ authorization: { params: { scope: 'user-read-email user-top-read' } } })
 */
export default function Spotify(options?: OAuthUserConfig<SpotifyProfile>): OAuthConfig<SpotifyProfile> {
  return preset(options);
}
