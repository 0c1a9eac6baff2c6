// Eventbrite, OAuth 2. The profile lists e-mail addresses; the primary one is the user's.
import { definePreset, type OAuthConfig, type OAuthUserConfig } from '../oauth.js';

/** `GET https://www.eventbriteapi.com/v3/users/me/`. */
export interface EventbriteProfile {
  id: string;
  name: string;
  first_name: string;
  last_name: string;
  emails: { email: string; verified: boolean; primary: boolean }[];
  is_public?: boolean;
  image_id: string | null;
  [key: string]: unknown;
}

const preset = /* @__PURE__ */ definePreset<EventbriteProfile>({
  id: 'eventbrite',
  name: 'Eventbrite',
  type: 'oauth',
  authorization: 'https://www.eventbrite.com/oauth/authorize',
  token: 'https://www.eventbrite.com/oauth/token',
  userinfo: 'https://www.eventbriteapi.com/v3/users/me/',
  client: { token_endpoint_auth_method: 'client_secret_post' },
  checks: ['state'],
  profile: (p) => ({
    id: p.id,
    name: p.name || [p.first_name, p.last_name].filter(Boolean).join(' ') || null,
    email: (p.emails?.find((e) => e.primary) ?? p.emails?.[0])?.email ?? null,
    // The image service takes the original's CDN URL, encoded, as its path.
    image: p.image_id ? `https://img.evbuc.com/${encodeURIComponent(`https://cdn.evbuc.com/images/${p.image_id}/1/original.jpg`)}` : null,
  }),
  style: { brandColor: '#f05537' },
});

/**
 * Sign in with Eventbrite. Reads `AUTH_EVENTBRITE_ID` (the API key) / `AUTH_EVENTBRITE_SECRET`.
 *
 * @example
 * providers: [Eventbrite()]
 */
export default function Eventbrite(options?: OAuthUserConfig<EventbriteProfile>): OAuthConfig<EventbriteProfile> {
  return preset(options);
}
