// Notion public integrations. The token belongs to a bot; the person who authorised it is its owner.
import { definePreset, type OAuthConfig, type OAuthUserConfig } from '../oauth.js';
import { bearer, fetchJson, userinfoUrl } from './_http.js';

/** A Notion person (the owner of the integration's bot user). */
export interface NotionProfile {
  object: 'user';
  id: string;
  type: 'person';
  name: string | null;
  avatar_url: string | null;
  person: { email?: string };
  [key: string]: unknown;
}

/** `GET /v1/users/me` with a bot token. */
interface NotionBotUser {
  object: 'user';
  id: string;
  type: 'bot';
  bot: { owner: { type: 'user'; user: NotionProfile } | { type: 'workspace'; workspace: true }; workspace_name?: string };
}

const preset = /* @__PURE__ */ definePreset<NotionProfile>({
  id: 'notion',
  name: 'Notion',
  type: 'oauth',
  authorization: { url: 'https://api.notion.com/v1/oauth/authorize', params: { owner: 'user' } },
  token: 'https://api.notion.com/v1/oauth/token',
  userinfo: {
    url: 'https://api.notion.com/v1/users/me',
    async request({ tokens, provider }) {
      const me = await fetchJson<NotionBotUser>(userinfoUrl(provider.userinfo), {
        headers: { ...bearer(tokens), 'notion-version': '2022-06-28' },
      });
      if (me.bot?.owner?.type !== 'user') throw new Error('Notion: the integration is not owned by a user.');
      return me.bot.owner.user;
    },
  },
  profile: (p) => ({ id: p.id, name: p.name, email: p.person?.email ?? null, image: p.avatar_url }),
  style: { brandColor: '#000000' },
});

/**
 * Sign in with Notion. Reads `AUTH_NOTION_ID` / `AUTH_NOTION_SECRET`.
 *
 * @example
 * providers: [Notion()]
 */
export default function Notion(options?: OAuthUserConfig<NotionProfile>): OAuthConfig<NotionProfile> {
  return preset(options);
}
