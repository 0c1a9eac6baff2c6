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

/** The account every {@link offlineOAuthAt} provider signs in. */
export const OFFLINE_PROFILE = { id: 'offline-1', name: 'Offline Ada', email: 'ada@offline.test' };

/**
 * An offline OAuth provider with its own id that can also finish a sign-in: its token and user-info requests
 * answer in process (a code `c` becomes access token `at-c`), so a callback carrying the right state completes.
 *
 * @example
 * const providers = Array.from({ length: 30 }, (_, i) => offlineOAuthAt(`acme-${i}`))
 */
export function offlineOAuthAt(id: string) {
  return OAuth({
    id,
    name: `Acme ${id}`,
    clientId: 'client',
    clientSecret: 'secret',
    authorization: 'https://acme.test/authorize?scope=read',
    token: { url: 'https://acme.test/token', request: async ({ params }) => ({ tokens: { access_token: `at-${params.code}`, token_type: 'bearer' } }) },
    userinfo: { url: 'https://acme.test/me', request: async () => ({ ...OFFLINE_PROFILE }) },
    checks: ['pkce', 'state'],
  });
}
