// Bungie.net, OAuth 2. Every API call needs the application's API key (`X-API-Key`), and the API reports its
// own errors with HTTP 200 and an `ErrorCode` other than 1.
import { definePreset, type OAuthConfig, type OAuthUserConfig, type UserinfoRequestContext } from '../oauth.js';
import { bearer, fetchJson, userinfoUrl } from './_http.js';

/** `GET /Platform/User/GetMembershipsForCurrentUser/`. */
export interface BungieProfile {
  Response: {
    destinyMemberships: { membershipType: number; membershipId: string; displayName: string }[];
    primaryMembershipId?: string;
    bungieNetUser: { membershipId: string; uniqueName?: string; displayName: string; profilePicturePath: string; [key: string]: unknown };
  };
  ErrorCode: number;
  ErrorStatus: string;
  Message: string;
}

const membershipsOf = (apiKey: string | undefined) => async ({ tokens, provider }: UserinfoRequestContext) => {
  const body = await fetchJson<BungieProfile>(userinfoUrl(provider.userinfo), { headers: { ...bearer(tokens), 'x-api-key': apiKey ?? '' } });
  if (body.ErrorCode !== 1) throw new Error(`Bungie answered ${body.ErrorStatus}: ${body.Message}`, { cause: body });
  return body;
};

const preset = /* @__PURE__ */ definePreset<BungieProfile>({
  id: 'bungie',
  name: 'Bungie',
  type: 'oauth',
  authorization: 'https://www.bungie.net/en/OAuth/Authorize',
  token: 'https://www.bungie.net/Platform/App/OAuth/Token/',
  userinfo: 'https://www.bungie.net/Platform/User/GetMembershipsForCurrentUser/',
  checks: ['state'],
  profile: ({ Response: { bungieNetUser: u } }) => ({
    id: u.membershipId,
    name: u.uniqueName ?? u.displayName,
    email: null,
    image: u.profilePicturePath ? new URL(u.profilePicturePath, 'https://www.bungie.net').href : null,
  }),
  style: { brandColor: '#0d99e6' },
});

/**
 * Sign in with Bungie.net. Reads `AUTH_BUNGIE_ID` / `AUTH_BUNGIE_SECRET`; `apiKey` is the application's API key.
 *
 * @example
 * Bungie({ apiKey: process.env.BUNGIE_API_KEY })
 */
export default function Bungie(options?: OAuthUserConfig<BungieProfile> & { apiKey?: string }): OAuthConfig<BungieProfile> {
  const { apiKey, ...rest } = options ?? {};
  const userinfo = typeof rest.userinfo === 'string' ? { url: rest.userinfo } : rest.userinfo;
  return preset({ ...rest, userinfo: { ...userinfo, request: userinfo?.request ?? membershipsOf(apiKey) } });
}
