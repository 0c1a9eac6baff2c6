// Discord OAuth2 applications.
import { definePreset, type OAuthConfig, type OAuthUserConfig } from '../oauth.js';

/** `GET /users/@me` with scopes `identify email`. */
export interface DiscordProfile {
  id: string;
  username: string;
  /** "0" for accounts migrated to unique usernames. */
  discriminator: string;
  global_name: string | null;
  avatar: string | null;
  bot?: boolean;
  mfa_enabled?: boolean;
  banner?: string | null;
  accent_color?: number | null;
  locale?: string;
  verified?: boolean;
  email?: string | null;
  flags?: number;
  premium_type?: number;
  public_flags?: number;
  [key: string]: unknown;
}

/**
 * Custom avatar (animated ones start with `a_`), else one of the default avatars.
 *
 * @example
 * discordAvatarUrl({ id: '80351110224678912', avatar: null, discriminator: '0' }) // .../embed/avatars/5.png
 */
export function discordAvatarUrl(p: Pick<DiscordProfile, 'id' | 'avatar' | 'discriminator'>): string {
  if (p.avatar) return `https://cdn.discordapp.com/avatars/${p.id}/${p.avatar}.${p.avatar.startsWith('a_') ? 'gif' : 'png'}`;
  const index = p.discriminator === '0' ? Number((BigInt(p.id) >> 22n) % 6n) : Number(p.discriminator) % 5;
  return `https://cdn.discordapp.com/embed/avatars/${index}.png`;
}

const preset = /* @__PURE__ */ definePreset<DiscordProfile>({
  id: 'discord',
  name: 'Discord',
  type: 'oauth',
  authorization: { url: 'https://discord.com/oauth2/authorize', params: { scope: 'identify email' } },
  token: 'https://discord.com/api/oauth2/token',
  userinfo: 'https://discord.com/api/users/@me',
  profile: (p) => ({ id: p.id, name: p.global_name ?? p.username, email: p.email ?? null, image: discordAvatarUrl(p) }),
  style: { brandColor: '#5865f2' },
});

/**
 * Sign in with Discord. Reads `AUTH_DISCORD_ID` / `AUTH_DISCORD_SECRET`.
 *
 * @example
 * Discord({ authorization: { params: { scope: 'identify' } } })
 */
export default function Discord(options?: OAuthUserConfig<DiscordProfile>): OAuthConfig<DiscordProfile> {
  return preset(options);
}
