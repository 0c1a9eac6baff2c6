// Each catalogue preset from 42-school to kinde: the token and user-info exchange against a fake of its documented API.
import GitHub from '../../src/providers/catalogue/github.js';
import Google from '../../src/providers/catalogue/google.js';
import { describeExchangeCases, type ExchangeCase } from './catalogue-exchange.js';

const cases: Record<string, ExchangeCase> = {
  github: {
    factory: GitHub,
    authorize: { url: 'https://github.com/login/oauth/authorize', scopes: ['read:user', 'user:email'] },
    token: { url: 'https://github.com/login/oauth/access_token', reply: { json: { access_token: 'gho_abc', token_type: 'bearer', scope: 'read:user,user:email' } } },
    routes: {
      'GET https://api.github.com/user': { json: { id: 1, login: 'mona', name: null, email: null, avatar_url: 'https://a.test/1' } },
      'GET https://api.github.com/user/emails': { json: [{ email: 'Mona@Example.com', primary: true, verified: true, visibility: 'private' }] },
    },
    user: { id: '1', name: 'mona', email: 'mona@example.com', image: 'https://a.test/1' },
    account: { access_token: 'gho_abc', token_type: 'bearer' },
  },
  'github#bad-code': {
    factory: GitHub,
    authorize: { url: 'https://github.com/login/oauth/authorize' },
    token: { url: 'https://github.com/login/oauth/access_token', reply: { json: { error: 'bad_verification_code', error_description: 'The code passed is incorrect or expired.' } } },
    error: 'OAuthCallbackError',
  },
  google: {
    factory: Google,
    authorize: { url: 'https://accounts.google.com/o/oauth2/v2/auth', scopes: ['openid', 'email', 'profile'] },
    token: { url: 'https://oauth2.googleapis.com/token', reply: { json: { access_token: 'ya29.x', token_type: 'Bearer', expires_in: 3599, scope: 'openid email profile' } } },
    idToken: { sub: '1101', email: 'J@example.com', email_verified: true, name: 'J S', picture: 'https://lh3.test/p' },
    user: { id: '1101', name: 'J S', email: 'j@example.com', image: 'https://lh3.test/p' },
    account: { access_token: 'ya29.x', expires_at: Math.floor(Date.UTC(2026, 0, 15, 12) / 1000) + 3599 },
  },
};

describeExchangeCases('catalogue exchange: 42-school..kinde', cases);
