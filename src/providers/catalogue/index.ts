// The built-in OAuth/OIDC providers, by PascalCase name and by id.
import type { OAuthProviderConfig } from '../oauth.js';

import FortyTwo, { type FortyTwoProfile } from './42-school.js';
import Asgardeo, { type AsgardeoProfile } from './asgardeo.js';
import AzureAD, { type AzureADProfile } from './azure-ad.js';
import AzureADB2C, { type AzureADB2CProfile } from './azure-ad-b2c.js';
import AzureDevOps, { type AzureDevOpsProfile } from './azure-devops.js';
import BankIDNorway, { type BankIDNorwayProfile } from './bankid-no.js';
import BattleNet, { type BattleNetProfile } from './battlenet.js';
import BeyondIdentity, { type BeyondIdentityProfile } from './beyondidentity.js';
import Box, { type BoxProfile } from './box.js';
import BoxyHQSAML, { type BoxyHQSAMLProfile } from './boxyhq-saml.js';
import Bungie, { type BungieProfile } from './bungie.js';
import ClickUp, { type ClickUpProfile } from './click-up.js';
import Coinbase, { type CoinbaseProfile } from './coinbase.js';
import Concept2, { type Concept2Profile } from './concept2.js';
import Descope, { type DescopeProfile } from './descope.js';
import Dribbble, { type DribbbleProfile } from './dribbble.js';
import DuendeIdentityServer6, { type DuendeISUser } from './duende-identity-server6.js';
import Eventbrite, { type EventbriteProfile } from './eventbrite.js';
import EVEOnline, { type EVEOnlineProfile } from './eveonline.js';
import FACEIT, { type FaceitProfile } from './faceit.js';
import Figma, { type FigmaProfile } from './figma.js';
import Foursquare, { type FoursquareProfile } from './foursquare.js';
import Freshbooks, { type FreshbooksProfile } from './freshbooks.js';
import Frontegg, { type FronteggProfile } from './frontegg.js';
import HubSpot, { type HubSpotProfile } from './hubspot.js';
import Huggingface, { type HuggingfaceProfile } from './huggingface.js';
import IdentityServer4, { type IdentityServer4Profile } from './identity-server4.js';
import Instagram, { type InstagramProfile } from './instagram.js';
import Kinde, { type KindeProfile } from './kinde.js';
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
import Logto, { type LogtoProfile } from './logto.js';
import Mailchimp, { type MailchimpProfile } from './mailchimp.js';
import Mailru, { type MailruProfile } from './mailru.js';
import Mastodon, { type MastodonProfile } from './mastodon.js';
import Mattermost, { type MattermostProfile } from './mattermost.js';
import Medium, { type MediumProfile } from './medium.js';
import Netlify, { type NetlifyProfile } from './netlify.js';
import NetSuite, { type NetSuiteProfile } from './netsuite.js';
import Nextcloud, { type NextcloudProfile } from './nextcloud.js';
import OneLogin, { type OneLoginProfile } from './onelogin.js';
import OryHydra, { type OryHydraProfile } from './ory-hydra.js';
import Osso, { type OssoProfile } from './osso.js';
import Osu, { type OsuProfile } from './osu.js';
import Passage, { type PassageProfile } from './passage.js';
import Patreon, { type PatreonProfile } from './patreon.js';
import PingId, { type PingIdProfile } from './ping-id.js';
import Pinterest, { type PinterestProfile } from './pinterest.js';
import Pipedrive, { type PipedriveProfile } from './pipedrive.js';
import Roblox, { type RobloxProfile } from './roblox.js';
import SimpleLogin, { type SimpleLoginProfile } from './simplelogin.js';
import Threads, { type ThreadsProfile } from './threads.js';
import TikTok, { type TikTokProfile } from './tiktok.js';
import Todoist, { type TodoistProfile } from './todoist.js';
import Trakt, { type TraktProfile } from './trakt.js';
import UnitedEffects, { type UnitedEffectsProfile } from './united-effects.js';
import Vipps, { type VippsProfile } from './vipps.js';
import Webex, { type WebexProfile } from './webex.js';
import WeChat, { type WeChatProfile } from './wechat.js';
import Wikimedia, { type WikimediaProfile } from './wikimedia.js';
import WordPress, { type WordPressProfile } from './wordpress.js';
import WorkOS, { type WorkOSProfile } from './workos.js';
import Zoho, { type ZohoProfile } from './zoho.js';

export {
  FortyTwo,
  Asgardeo,
  AzureAD,
  AzureADB2C,
  AzureDevOps,
  BankIDNorway,
  BattleNet,
  BeyondIdentity,
  Box,
  BoxyHQSAML,
  Bungie,
  ClickUp,
  Coinbase,
  Concept2,
  Descope,
  Dribbble,
  DuendeIdentityServer6,
  Eventbrite,
  EVEOnline,
  FACEIT,
  Figma,
  Foursquare,
  Freshbooks,
  Frontegg,
  HubSpot,
  Huggingface,
  IdentityServer4,
  Instagram,
  Kinde,
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
  Logto,
  Mailchimp,
  Mailru,
  Mastodon,
  Mattermost,
  Medium,
  Netlify,
  NetSuite,
  Nextcloud,
  OneLogin,
  OryHydra,
  Osso,
  Osu,
  Passage,
  Patreon,
  PingId,
  Pinterest,
  Pipedrive,
  Roblox,
  SimpleLogin,
  Threads,
  TikTok,
  Todoist,
  Trakt,
  UnitedEffects,
  Vipps,
  Webex,
  WeChat,
  Wikimedia,
  WordPress,
  WorkOS,
  Zoho,
};
export type {
  FortyTwoProfile,
  AsgardeoProfile,
  AzureADProfile,
  AzureADB2CProfile,
  AzureDevOpsProfile,
  BankIDNorwayProfile,
  BattleNetProfile,
  BeyondIdentityProfile,
  BoxProfile,
  BoxyHQSAMLProfile,
  BungieProfile,
  ClickUpProfile,
  CoinbaseProfile,
  Concept2Profile,
  DescopeProfile,
  DribbbleProfile,
  DuendeISUser,
  EventbriteProfile,
  EVEOnlineProfile,
  FaceitProfile,
  FigmaProfile,
  FoursquareProfile,
  FreshbooksProfile,
  FronteggProfile,
  HubSpotProfile,
  HuggingfaceProfile,
  IdentityServer4Profile,
  InstagramProfile,
  KindeProfile,
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
  LogtoProfile,
  MailchimpProfile,
  MailruProfile,
  MastodonProfile,
  MattermostProfile,
  MediumProfile,
  NetlifyProfile,
  NetSuiteProfile,
  NextcloudProfile,
  OneLoginProfile,
  OryHydraProfile,
  OssoProfile,
  OsuProfile,
  PassageProfile,
  PatreonProfile,
  PingIdProfile,
  PinterestProfile,
  PipedriveProfile,
  RobloxProfile,
  SimpleLoginProfile,
  ThreadsProfile,
  TikTokProfile,
  TodoistProfile,
  TraktProfile,
  UnitedEffectsProfile,
  VippsProfile,
  WebexProfile,
  WeChatProfile,
  WikimediaProfile,
  WordPressProfile,
  WorkOSProfile,
  ZohoProfile,
};

/** A catalogue factory: called with overrides (or nothing) it returns the provider's configuration. */
export type CatalogueFactory = (options?: any) => OAuthProviderConfig<any>;

// Every preset by id; its exact keys give OAuthProviderId, while `catalogue` stays indexable by any string.
const presetsById = {
  '42-school': FortyTwo,
  asgardeo: Asgardeo,
  'azure-ad': AzureAD,
  'azure-ad-b2c': AzureADB2C,
  'azure-devops': AzureDevOps,
  'bankid-no': BankIDNorway,
  battlenet: BattleNet,
  beyondidentity: BeyondIdentity,
  box: Box,
  'boxyhq-saml': BoxyHQSAML,
  bungie: Bungie,
  'click-up': ClickUp,
  coinbase: Coinbase,
  concept2: Concept2,
  descope: Descope,
  dribbble: Dribbble,
  'duende-identity-server6': DuendeIdentityServer6,
  eventbrite: Eventbrite,
  eveonline: EVEOnline,
  faceit: FACEIT,
  figma: Figma,
  foursquare: Foursquare,
  freshbooks: Freshbooks,
  frontegg: Frontegg,
  hubspot: HubSpot,
  huggingface: Huggingface,
  'identity-server4': IdentityServer4,
  instagram: Instagram,
  kinde: Kinde,
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
  logto: Logto,
  mailchimp: Mailchimp,
  mailru: Mailru,
  mastodon: Mastodon,
  mattermost: Mattermost,
  medium: Medium,
  netlify: Netlify,
  netsuite: NetSuite,
  nextcloud: Nextcloud,
  onelogin: OneLogin,
  // Auth.js's module is ory-hydra, its provider id hydra: both find it.
  hydra: OryHydra,
  'ory-hydra': OryHydra,
  osso: Osso,
  osu: Osu,
  passage: Passage,
  patreon: Patreon,
  'ping-id': PingId,
  pinterest: Pinterest,
  pipedrive: Pipedrive,
  roblox: Roblox,
  simplelogin: SimpleLogin,
  threads: Threads,
  tiktok: TikTok,
  todoist: Todoist,
  trakt: Trakt,
  'united-effects': UnitedEffects,
  vipps: Vipps,
  webex: Webex,
  wechat: WeChat,
  wikimedia: Wikimedia,
  wordpress: WordPress,
  workos: WorkOS,
  zoho: Zoho,
} satisfies Record<string, CatalogueFactory>;

/**
 * Every built-in OAuth/OIDC provider by id, e.g. to build providers from configuration data.
 *
 * @example
 * const providers = ['github', 'google'].map((id) => catalogue[id]())
 */
export const catalogue: Readonly<Record<string, CatalogueFactory>> = /* @__PURE__ */ Object.freeze(presetsById);

/**
 * The id of every built-in OAuth/OIDC preset, read from the catalogue's map: a preset added there is in the union.
 *
 * @example
 * const id: OAuthProviderId = 'github'
 */
export type OAuthProviderId = keyof typeof presetsById;
