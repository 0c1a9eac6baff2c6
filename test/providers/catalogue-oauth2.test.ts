// Each built-in OAuth 2 provider: its authorization URL and its mapping of a real profile response.
import { describe, expect, it } from 'vitest';
import Atlassian from '../../src/providers/catalogue/atlassian.js';
import Bitbucket from '../../src/providers/catalogue/bitbucket.js';
import Discord, { discordAvatarUrl } from '../../src/providers/catalogue/discord.js';
import Dropbox from '../../src/providers/catalogue/dropbox.js';
import Facebook from '../../src/providers/catalogue/facebook.js';
import GitHub from '../../src/providers/catalogue/github.js';
import GitLab from '../../src/providers/catalogue/gitlab.js';
import Kakao from '../../src/providers/catalogue/kakao.js';
import Naver from '../../src/providers/catalogue/naver.js';
import Notion from '../../src/providers/catalogue/notion.js';
import Reddit from '../../src/providers/catalogue/reddit.js';
import Spotify from '../../src/providers/catalogue/spotify.js';
import Strava from '../../src/providers/catalogue/strava.js';
import Twitter from '../../src/providers/catalogue/twitter.js';
import VK from '../../src/providers/catalogue/vk.js';
import Yandex from '../../src/providers/catalogue/yandex.js';
import Zoom from '../../src/providers/catalogue/zoom.js';
import { checkCatalogueCase, type CatalogueCase } from './catalogue-harness.js';

const cases: Record<string, CatalogueCase> = {
  github: {
    factory: GitHub,
    authorize: { origin: 'https://github.com', pathname: '/login/oauth/authorize', scopes: ['read:user', 'user:email'] },
    profile: {
      login: 'octocat', id: 583231, node_id: 'MDQ6VXNlcjU4MzIzMQ==', avatar_url: 'https://avatars.githubusercontent.com/u/583231?v=4',
      gravatar_id: '', url: 'https://api.github.com/users/octocat', html_url: 'https://github.com/octocat', type: 'User', site_admin: false,
      name: 'The Octocat', company: '@github', blog: 'https://github.blog', location: 'San Francisco', email: 'Octocat@GitHub.com',
      hireable: null, bio: null, twitter_username: null, public_repos: 8, public_gists: 8, followers: 9999, following: 9,
      created_at: '2011-01-25T18:44:36Z', updated_at: '2025-10-22T12:00:00Z',
    },
    user: { id: '583231', name: 'The Octocat', email: 'octocat@github.com', image: 'https://avatars.githubusercontent.com/u/583231?v=4' },
    tokens: { access_token: 'gho_16C7e42F292c6912E7710c838347Ae178B4a', token_type: 'bearer', scope: 'read:user,user:email' },
  },
  discord: {
    factory: Discord,
    authorize: { origin: 'https://discord.com', pathname: '/oauth2/authorize', scopes: ['identify', 'email'] },
    profile: {
      id: '80351110224678912', username: 'nelly', discriminator: '0', global_name: 'Nelly', avatar: '8342729096ea3675442027381ff50dfe',
      verified: true, email: 'nelly@discord.com', flags: 64, banner: '06c16474723fe537c283b8efa61a30c8', accent_color: 16711680,
      premium_type: 1, public_flags: 64, mfa_enabled: true, locale: 'en-US',
    },
    user: { id: '80351110224678912', name: 'Nelly', email: 'nelly@discord.com', image: 'https://cdn.discordapp.com/avatars/80351110224678912/8342729096ea3675442027381ff50dfe.png' },
  },
  gitlab: {
    factory: GitLab,
    authorize: { origin: 'https://gitlab.com', pathname: '/oauth/authorize', scopes: ['read_user'] },
    profile: {
      id: 1, username: 'john_smith', name: 'John Smith', state: 'active', locked: false,
      avatar_url: 'https://gitlab.com/uploads/-/system/user/avatar/1/avatar.png', web_url: 'https://gitlab.com/john_smith',
      created_at: '2012-05-23T08:00:58Z', bio: '', location: null, public_email: 'john@example.com', email: 'john@example.com',
      confirmed_at: '2012-05-23T09:05:22Z', two_factor_enabled: true,
    },
    user: { id: '1', name: 'John Smith', email: 'john@example.com', image: 'https://gitlab.com/uploads/-/system/user/avatar/1/avatar.png' },
  },
  facebook: {
    factory: Facebook,
    authorize: { origin: 'https://www.facebook.com', pathname: '/v22.0/dialog/oauth', scopes: ['email', 'public_profile'] },
    profile: {
      id: '10158123456789012', name: 'Jane Doe', email: 'jane.doe@example.com',
      picture: { data: { height: 50, is_silhouette: false, url: 'https://platform-lookaside.fbsbx.com/platform/profilepic/?asid=10158123456789012&height=50&width=50', width: 50 } },
    },
    user: { id: '10158123456789012', name: 'Jane Doe', email: 'jane.doe@example.com', image: 'https://platform-lookaside.fbsbx.com/platform/profilepic/?asid=10158123456789012&height=50&width=50' },
  },
  twitter: {
    factory: Twitter,
    authorize: { origin: 'https://x.com', pathname: '/i/oauth2/authorize', scopes: ['users.read', 'tweet.read', 'offline.access'] },
    profile: {
      data: { id: '2244994945', name: 'X Developers', username: 'XDevelopers', profile_image_url: 'https://pbs.twimg.com/profile_images/1683325380441128960/yRsRRjGO_normal.jpg' },
    },
    user: { id: '2244994945', name: 'X Developers', email: null, image: 'https://pbs.twimg.com/profile_images/1683325380441128960/yRsRRjGO.jpg' },
  },
  spotify: {
    factory: Spotify,
    authorize: { origin: 'https://accounts.spotify.com', pathname: '/authorize', scopes: ['user-read-email'] },
    profile: {
      country: 'SE', display_name: 'Smedjan', email: 'smedjan@example.com', explicit_content: { filter_enabled: false, filter_locked: false },
      external_urls: { spotify: 'https://open.spotify.com/user/smedjan' }, followers: { href: null, total: 12 },
      href: 'https://api.spotify.com/v1/users/smedjan', id: 'smedjan',
      images: [{ url: 'https://i.scdn.co/image/ab67757000003b8255c25988a6ac314394d3fbf5', height: 300, width: 300 }],
      product: 'premium', type: 'user', uri: 'spotify:user:smedjan',
    },
    user: { id: 'smedjan', name: 'Smedjan', email: 'smedjan@example.com', image: 'https://i.scdn.co/image/ab67757000003b8255c25988a6ac314394d3fbf5' },
  },
  reddit: {
    factory: Reddit,
    authorize: { origin: 'https://www.reddit.com', pathname: '/api/v1/authorize', scopes: ['identity'] },
    profile: {
      id: '1w72', name: 'spez', snoovatar_img: '', created_utc: 1118030400, verified: true, has_verified_email: true, total_karma: 912345, over_18: true,
      icon_img: 'https://styles.redditmedia.com/t5_3k30p/styles/profileIcon_snoo.png?width=256&amp;height=256&amp;crop=256:256,smart&amp;s=abc',
    },
    user: { id: '1w72', name: 'spez', email: null, image: 'https://styles.redditmedia.com/t5_3k30p/styles/profileIcon_snoo.png?width=256&height=256&crop=256:256,smart&s=abc' },
  },
  zoom: {
    factory: Zoom,
    authorize: { origin: 'https://zoom.us', pathname: '/oauth/authorize' },
    profile: {
      id: 'KDcuGIm1QgePTO8WbOqwIQ', first_name: 'Jill', last_name: 'Chill', display_name: 'Jill Chill', email: 'jchill@example.com', type: 1,
      role_name: 'Owner', pmi: 3542471135, use_pmi: false, personal_meeting_url: 'https://zoom.us/j/3542471135', timezone: 'Asia/Shanghai',
      verified: 1, dept: '', created_at: '2019-06-01T07:58:03Z', last_login_time: '2025-06-01T07:58:03Z', pic_url: 'https://zoom.us/p/KDcuGIm1QgePTO8WbOqwIQ/photo.jpg',
      language: 'en-US', status: 'active', account_id: 'q6gBJVO5TzexKYTb_I2rpg',
    },
    user: { id: 'KDcuGIm1QgePTO8WbOqwIQ', name: 'Jill Chill', email: 'jchill@example.com', image: 'https://zoom.us/p/KDcuGIm1QgePTO8WbOqwIQ/photo.jpg' },
  },
  notion: {
    factory: Notion,
    authorize: { origin: 'https://api.notion.com', pathname: '/v1/oauth/authorize', params: { owner: 'user' } },
    profile: {
      object: 'user', id: 'e79a0b74-3aba-4149-9f74-0bb5791a6ee6', type: 'person', name: 'Avocado Lovelace',
      avatar_url: 'https://secure.notion-static.com/e6a352a8-8381-44d0-a1dc-9ed80e62b53d.jpg', person: { email: 'avo@example.org' },
    },
    user: { id: 'e79a0b74-3aba-4149-9f74-0bb5791a6ee6', name: 'Avocado Lovelace', email: 'avo@example.org', image: 'https://secure.notion-static.com/e6a352a8-8381-44d0-a1dc-9ed80e62b53d.jpg' },
  },
  atlassian: {
    factory: Atlassian,
    authorize: { origin: 'https://auth.atlassian.com', pathname: '/authorize', scopes: ['read:me'], params: { audience: 'api.atlassian.com', prompt: 'consent' } },
    profile: {
      account_type: 'atlassian', account_id: '557058:f58131cb-b67d-43c7-b30d-6b58d40bd077', email: 'mia@example.com', name: 'Mia Krystof',
      picture: 'https://avatar-management--avatars.us-west-2.prod.public.atl-paas.net/557058:f58131cb/128', account_status: 'active',
      nickname: 'mkrystof', zoneinfo: 'Australia/Sydney', locale: 'en-US', email_verified: true,
      extended_profile: { job_title: 'Designer', organization: 'Acme', department: 'Design team', location: 'Sydney' },
    },
    user: { id: '557058:f58131cb-b67d-43c7-b30d-6b58d40bd077', name: 'Mia Krystof', email: 'mia@example.com', image: 'https://avatar-management--avatars.us-west-2.prod.public.atl-paas.net/557058:f58131cb/128' },
  },
  bitbucket: {
    factory: Bitbucket,
    authorize: { origin: 'https://bitbucket.org', pathname: '/site/oauth2/authorize' },
    profile: {
      display_name: 'Evan Example', type: 'user', uuid: '{4a2b7d0e-2f6c-4b1a-9d8e-1a2b3c4d5e6f}', username: 'evanexample', nickname: 'evan',
      links: { avatar: { href: 'https://secure.gravatar.com/avatar/0f3c.png' }, html: { href: 'https://bitbucket.org/%7B4a2b7d0e%7D/' } },
      created_on: '2018-07-11T10:09:05.011612+00:00', has_2fa_enabled: null, is_staff: false, account_id: '5b45d5f5e9c7a42c0e1d2f3a',
      account_status: 'active', location: null, email: 'evan@example.com',
    },
    user: { id: '{4a2b7d0e-2f6c-4b1a-9d8e-1a2b3c4d5e6f}', name: 'Evan Example', email: 'evan@example.com', image: 'https://secure.gravatar.com/avatar/0f3c.png' },
  },
  dropbox: {
    factory: Dropbox,
    authorize: { origin: 'https://www.dropbox.com', pathname: '/oauth2/authorize', scopes: ['account_info.read'], params: { token_access_type: 'offline' } },
    profile: {
      account_id: 'dbid:AAH4f99T0taONIb-OurWxbNQ6ywGRopQngc',
      name: { given_name: 'Franz', surname: 'Ferdinand', familiar_name: 'Franz', display_name: 'Franz Ferdinand (Personal)', abbreviated_name: 'FF' },
      email: 'franz@dropbox.com', email_verified: true, disabled: false, locale: 'en', referral_link: 'https://db.tt/ZITNuhtI', is_paired: true,
      account_type: { '.tag': 'basic' }, country: 'US', team: null,
      profile_photo_url: 'https://dl-web.dropbox.com/account_photo/get/dbaphid%3AAAHWGmIXV3sUuOmBfTz0wPsiqHUpBWvv3ZA?size=128x128',
      root_info: { '.tag': 'user', root_namespace_id: '3235641', home_namespace_id: '3235641' },
    },
    user: {
      id: 'dbid:AAH4f99T0taONIb-OurWxbNQ6ywGRopQngc', name: 'Franz Ferdinand (Personal)', email: 'franz@dropbox.com',
      image: 'https://dl-web.dropbox.com/account_photo/get/dbaphid%3AAAHWGmIXV3sUuOmBfTz0wPsiqHUpBWvv3ZA?size=128x128',
    },
  },
  strava: {
    factory: Strava,
    authorize: { origin: 'https://www.strava.com', pathname: '/oauth/authorize', scopes: ['read'], params: { approval_prompt: 'auto' } },
    profile: {
      id: 134815, username: 'marianne_t', resource_state: 2, firstname: 'Marianne', lastname: 'Teutenberg', city: 'San Francisco', state: 'CA',
      country: 'US', sex: 'F', premium: true, summit: true, created_at: '2017-11-14T02:30:05Z', updated_at: '2018-02-06T19:32:20Z', badge_type_id: 4,
      profile_medium: 'https://dgalywyr863hv.cloudfront.net/pictures/athletes/134815/134815/2/medium.jpg',
      profile: 'https://dgalywyr863hv.cloudfront.net/pictures/athletes/134815/134815/2/large.jpg',
    },
    user: { id: '134815', name: 'Marianne Teutenberg', email: null, image: 'https://dgalywyr863hv.cloudfront.net/pictures/athletes/134815/134815/2/large.jpg' },
    tokens: { token_type: 'Bearer', expires_at: 1768500000, expires_in: 21600, refresh_token: 'e5n567', access_token: 'a4b945', athlete: { id: 134815 } },
  },
  yandex: {
    factory: Yandex,
    authorize: { origin: 'https://oauth.yandex.ru', pathname: '/authorize', scopes: ['login:info', 'login:email', 'login:avatar'] },
    profile: {
      id: '1000034426', login: 'ivan', client_id: '4760187d81bc4b7799476b42b5103713', display_name: 'Ivan', real_name: 'Ivan Ivanov',
      first_name: 'Ivan', last_name: 'Ivanov', sex: 'male', default_email: 'test@yandex.ru', emails: ['test@yandex.ru', 'other-test@yandex.ru'],
      default_avatar_id: '131652443', is_avatar_empty: false, psuid: '1.AAceCw.tbHgw5DtJ9_zeqPrk-Ba2w.qPWSRC5v2t2IaksPJgnge',
    },
    user: { id: '1000034426', name: 'Ivan', email: 'test@yandex.ru', image: 'https://avatars.yandex.net/get-yapic/131652443/islands-200' },
  },
  vk: {
    factory: VK,
    authorize: { origin: 'https://id.vk.ru', pathname: '/authorize', scopes: ['vkid.personal_info', 'email'] },
    profile: {
      user_id: '1234567890', first_name: 'Ivan', last_name: 'Ivanov', phone: '79991234567', email: 'ivan_i123@vk.com', sex: 2, verified: false,
      avatar: 'https://pp.userapi.com/60tZWMo4SmwcploUVl9XEt8ufnTTvDUmQ6Bj1g/mmv1pcj63C4.png', birthday: '01.01.2000',
    },
    user: { id: '1234567890', name: 'Ivan Ivanov', email: 'ivan_i123@vk.com', image: 'https://pp.userapi.com/60tZWMo4SmwcploUVl9XEt8ufnTTvDUmQ6Bj1g/mmv1pcj63C4.png' },
  },
  kakao: {
    factory: Kakao,
    authorize: { origin: 'https://kauth.kakao.com', pathname: '/oauth/authorize' },
    profile: {
      id: 123456789, connected_at: '2022-04-11T01:45:28Z',
      properties: { nickname: '홍길동', profile_image: 'http://k.kakaocdn.net/dn/abc/img_640x640.jpg', thumbnail_image: 'http://k.kakaocdn.net/dn/abc/img_110x110.jpg' },
      kakao_account: {
        profile_nickname_needs_agreement: false,
        profile: { nickname: '홍길동', thumbnail_image_url: 'http://k.kakaocdn.net/dn/abc/img_110x110.jpg', profile_image_url: 'http://k.kakaocdn.net/dn/abc/img_640x640.jpg', is_default_image: false },
        email_needs_agreement: false, has_email: true, is_email_valid: true, is_email_verified: true, email: 'sample@sample.com',
      },
    },
    user: { id: '123456789', name: '홍길동', email: 'sample@sample.com', image: 'http://k.kakaocdn.net/dn/abc/img_640x640.jpg' },
  },
  naver: {
    factory: Naver,
    authorize: { origin: 'https://nid.naver.com', pathname: '/oauth2.0/authorize' },
    profile: {
      resultcode: '00', message: 'success',
      response: {
        email: 'openapi@naver.com', nickname: 'OpenAPI', profile_image: 'https://ssl.pstatic.net/static/pwe/address/nodata_33x33.gif', age: '40-49',
        gender: 'F', id: '32742776', name: '오픈 API', birthday: '10-01', birthyear: '1900', mobile: '010-0000-0000',
      },
    },
    user: { id: '32742776', name: 'OpenAPI', email: 'openapi@naver.com', image: 'https://ssl.pstatic.net/static/pwe/address/nodata_33x33.gif' },
    tokens: { access_token: 'AAAAQosjWDJieBiQZc3to9YQp6HDLvrmyKC', refresh_token: 'c8ceMEJisO4Se7uGisHoX0f5JEii7JnipglQipkOn5Zp3tyP7dHQoP0zNKHUq2gY', token_type: 'bearer', expires_in: '3600' as unknown as number },
  },
};

describe('catalogue: OAuth 2 providers', () => {
  for (const [id, c] of Object.entries(cases)) {
    it(`${id}: authorization URL and profile mapping`, () => checkCatalogueCase(id, c));
  }
});

describe('discordAvatarUrl', () => {
  it('picks animated avatars, and the default avatar by id (new usernames) or discriminator (legacy)', () => {
    expect(discordAvatarUrl({ id: '1', avatar: 'a_1269e74af4df7417b13759eae50c83dc', discriminator: '0' })).toBe(
      'https://cdn.discordapp.com/avatars/1/a_1269e74af4df7417b13759eae50c83dc.gif',
    );
    expect(discordAvatarUrl({ id: '80351110224678912', avatar: null, discriminator: '0' })).toBe('https://cdn.discordapp.com/embed/avatars/5.png');
    expect(discordAvatarUrl({ id: '80351110224678912', avatar: null, discriminator: '1337' })).toBe('https://cdn.discordapp.com/embed/avatars/2.png');
  });
});
