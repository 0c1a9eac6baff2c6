// WeChat web authorization. Nothing is RFC 6749: the client id is `appid`, the authorization URL must keep WeChat's
// parameter order and `#wechat_redirect`, the code is exchanged by GET with `secret`, and errors come with status 200.
import type { TokenSet } from '../../core/types.js';
import { definePreset, mergeProviderOptions, type OAuthConfig, type OAuthUserConfig } from '../oauth.js';
import { fetchJson, userinfoUrl } from './_http.js';

/** `GET https://api.weixin.qq.com/sns/userinfo`; `unionid` only for apps bound to a WeChat Open Platform account. */
export interface WeChatProfile {
  openid: string;
  unionid?: string;
  nickname: string;
  headimgurl: string;
  /** 1 male, 2 female, 0 unknown. */
  sex: number;
  province: string;
  city: string;
  country: string;
  privilege: string[];
  [key: string]: unknown;
}

type WeChatAnswer = Record<string, any> & { errcode?: number; errmsg?: string };
const ok = <T extends WeChatAnswer>(answer: T, step: string): T => {
  if (answer.errcode) throw new Error(`WeChat ${step}: ${answer.errcode} ${answer.errmsg ?? ''}`, { cause: answer });
  return answer;
};

const preset = /* @__PURE__ */ definePreset<WeChatProfile>({
  id: 'wechat',
  name: 'WeChat',
  type: 'oauth',
  authorization: {
    url: 'https://open.weixin.qq.com/connect/oauth2/authorize',
    params: { scope: 'snsapi_userinfo' },
    conform: (url) => {
      const q = url.searchParams;
      const ordered = new URL(url.origin + url.pathname);
      for (const [key, from] of [['appid', 'client_id'], ['redirect_uri'], ['response_type'], ['scope'], ['state']]) {
        const value = q.get(from ?? key);
        if (value !== null) ordered.searchParams.set(key, value);
      }
      ordered.hash = 'wechat_redirect';
      return ordered;
    },
  },
  token: {
    url: 'https://api.weixin.qq.com/sns/oauth2/access_token',
    async request({ params, provider }) {
      const url = new URL(provider.token.url!);
      url.search = new URLSearchParams({ appid: provider.clientId ?? '', secret: provider.clientSecret ?? '', code: params.code ?? '', grant_type: 'authorization_code' }).toString();
      const tokens = ok(await fetchJson<WeChatAnswer>(url), 'token');
      return { tokens: { token_type: 'bearer', ...tokens } as TokenSet };
    },
  },
  userinfo: {
    url: 'https://api.weixin.qq.com/sns/userinfo',
    params: { lang: 'zh_CN' },
    async request({ tokens, provider }) {
      const url = userinfoUrl(provider.userinfo);
      url.searchParams.set('access_token', String(tokens.access_token ?? ''));
      url.searchParams.set('openid', String(tokens.openid ?? ''));
      return ok(await fetchJson<WeChatAnswer>(url), 'user info');
    },
  },
  checks: ['state'],
  profile: (p) => ({ id: p.unionid || p.openid, name: p.nickname || null, email: null, image: p.headimgurl || null }),
  style: { brandColor: '#07c160' },
});

/**
 * Sign in with WeChat. Reads `AUTH_WECHAT_ID` (the AppID) / `AUTH_WECHAT_SECRET`. `platformType: 'WebsiteApp'`
 * shows a QR code (Open Platform website app) instead of authorising inside WeChat (Official Account).
 *
 * @example
 * WeChat({ platformType: 'WebsiteApp' })
 */
export default function WeChat(options: OAuthUserConfig<WeChatProfile> & { platformType?: 'OfficialAccount' | 'WebsiteApp' } = {}): OAuthConfig<WeChatProfile> {
  const { platformType, ...rest } = options;
  if (platformType !== 'WebsiteApp') return preset(rest);
  return mergeProviderOptions(preset({ authorization: { url: 'https://open.weixin.qq.com/connect/qrconnect', params: { scope: 'snsapi_login' } } }), rest);
}
