// An OAuth provider on a host that never answers (acme.test), for tests that only need a flow to start
// and fail: with the state check on, a forged callback fails before any request could leave the machine.
import { OAuth } from '../../src/providers/oauth.js';

export const offlineOAuth = OAuth({
  id: 'acme',
  name: 'Acme',
  clientId: 'client',
  clientSecret: 'secret',
  authorization: 'https://acme.test/authorize?scope=read',
  token: 'https://acme.test/token',
  userinfo: 'https://acme.test/me',
  checks: ['pkce', 'state'],
});
