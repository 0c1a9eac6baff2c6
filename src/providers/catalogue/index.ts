// The built-in OAuth/OIDC providers, by PascalCase name and by id.
import type { OAuthProviderConfig } from '../oauth.js';

import Apple, { type AppleProfile } from './apple.js';
import Atlassian, { type AtlassianProfile } from './atlassian.js';
import Auth0, { type Auth0Profile } from './auth0.js';
import Authentik, { type AuthentikProfile } from './authentik.js';
import Bitbucket, { type BitbucketProfile } from './bitbucket.js';
import Cognito, { type CognitoProfile } from './cognito.js';
import Discord, { type DiscordProfile } from './discord.js';
import Dropbox, { type DropboxProfile } from './dropbox.js';
import Facebook, { type FacebookProfile } from './facebook.js';
import FusionAuth, { type FusionAuthProfile } from './fusionauth.js';
import GitHub, { type GitHubProfile } from './github.js';
import GitLab, { type GitLabProfile } from './gitlab.js';
import Google, { type GoogleProfile } from './google.js';
import Kakao, { type KakaoProfile } from './kakao.js';
import Keycloak, { type KeycloakProfile } from './keycloak.js';
import Line, { type LineProfile } from './line.js';
import LinkedIn, { type LinkedInProfile } from './linkedin.js';
import MicrosoftEntraID, { type MicrosoftEntraIDProfile } from './microsoft-entra-id.js';
import Naver, { type NaverProfile } from './naver.js';
import Notion, { type NotionProfile } from './notion.js';
import Okta, { type OktaProfile } from './okta.js';
import Reddit, { type RedditProfile } from './reddit.js';
import Salesforce, { type SalesforceProfile } from './salesforce.js';
import Slack, { type SlackProfile } from './slack.js';
import Spotify, { type SpotifyProfile } from './spotify.js';
import Strava, { type StravaProfile } from './strava.js';
import Twitch, { type TwitchProfile } from './twitch.js';
import Twitter, { type TwitterProfile } from './twitter.js';
import VK, { type VKProfile } from './vk.js';
import Yandex, { type YandexProfile } from './yandex.js';
import Zitadel, { type ZitadelProfile } from './zitadel.js';
import Zoom, { type ZoomProfile } from './zoom.js';

export {
  Apple,
  Atlassian,
  Auth0,
  Authentik,
  Bitbucket,
  Cognito,
  Discord,
  Dropbox,
  Facebook,
  FusionAuth,
  GitHub,
  GitLab,
  Google,
  Kakao,
  Keycloak,
  Line,
  LinkedIn,
  MicrosoftEntraID,
  Naver,
  Notion,
  Okta,
  Reddit,
  Salesforce,
  Slack,
  Spotify,
  Strava,
  Twitch,
  Twitter,
  VK,
  Yandex,
  Zitadel,
  Zoom,
};
export type {
  AppleProfile,
  AtlassianProfile,
  Auth0Profile,
  AuthentikProfile,
  BitbucketProfile,
  CognitoProfile,
  DiscordProfile,
  DropboxProfile,
  FacebookProfile,
  FusionAuthProfile,
  GitHubProfile,
  GitLabProfile,
  GoogleProfile,
  KakaoProfile,
  KeycloakProfile,
  LineProfile,
  LinkedInProfile,
  MicrosoftEntraIDProfile,
  NaverProfile,
  NotionProfile,
  OktaProfile,
  RedditProfile,
  SalesforceProfile,
  SlackProfile,
  SpotifyProfile,
  StravaProfile,
  TwitchProfile,
  TwitterProfile,
  VKProfile,
  YandexProfile,
  ZitadelProfile,
  ZoomProfile,
};

/** A catalogue factory: called with overrides (or nothing) it returns the provider's configuration. */
export type CatalogueFactory = (options?: any) => OAuthProviderConfig<any>;

/**
 * Every built-in OAuth/OIDC provider by id, e.g. to build providers from configuration data.
 *
 * @example
 * const providers = ['github', 'google'].map((id) => catalogue[id]())
 */
export const catalogue: Readonly<Record<string, CatalogueFactory>> = /* @__PURE__ */ Object.freeze({
  apple: Apple,
  atlassian: Atlassian,
  auth0: Auth0,
  authentik: Authentik,
  bitbucket: Bitbucket,
  cognito: Cognito,
  discord: Discord,
  dropbox: Dropbox,
  facebook: Facebook,
  fusionauth: FusionAuth,
  github: GitHub,
  gitlab: GitLab,
  google: Google,
  kakao: Kakao,
  keycloak: Keycloak,
  line: Line,
  linkedin: LinkedIn,
  'microsoft-entra-id': MicrosoftEntraID,
  naver: Naver,
  notion: Notion,
  okta: Okta,
  reddit: Reddit,
  salesforce: Salesforce,
  slack: Slack,
  spotify: Spotify,
  strava: Strava,
  twitch: Twitch,
  twitter: Twitter,
  vk: VK,
  yandex: Yandex,
  zitadel: Zitadel,
  zoom: Zoom,
});
