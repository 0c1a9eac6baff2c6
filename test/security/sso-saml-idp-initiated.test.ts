// IdP-initiated SAML sign-in (issue 49), off by default and taken only when the connection sets
// `allowIdpInitiated`: then a response no flow of this browser waits for is checked like any other (signature,
// audience, recipient, issuer, times), must carry no InResponseTo (it answers no request), and its assertion id is
// single-use on every instance sharing the flow store. Each refusal a typed SamlResponseRefused, never a session.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { redisFlowStore } from '../../src/core/flow-store/store.js';
import { useSharedStores } from '../support/shared-stores.js';
import { setsSession } from '../e2e/oauth/harness.js';
import type { ResponseOptions } from '../e2e/peers/saml-idp.js';
import { startSamlWorld, type SamlWorld } from '../e2e/peers/saml-world.js';
import type { TestAuth } from '../support/auth-app.js';
import type { ClientResponse } from '../support/client.js';

const stores = useSharedStores();
let w: SamlWorld;
beforeAll(async () => {
  const flowStore = redisFlowStore(await stores.redis(), { prefix: `${stores.redisPrefix}saml-idp:` });
  w = await startSamlWorld({ flowStore });
}, 60_000);
afterAll(async () => {
  await w?.stop();
});

const acsPath = () => `/auth/sso/saml/${w.connectionId}/acs`;
const unsolicited = (options: ResponseOptions = {}, account = 'alice') => {
  const request = { id: '', acsUrl: `http://localhost:3000${acsPath()}`, issuer: `http://localhost:3000/auth/sso/saml/${w.connectionId}/metadata`, relayState: null };
  return { SAMLResponse: Buffer.from(w.idp.responseXml(request, account, { inResponseTo: null, ...options }), 'utf8').toString('base64') };
};
const post = (form: Record<string, string>, t: TestAuth = w.a) => t.newClient().post(acsPath(), form);
async function allow(on: boolean) {
  const res = await w.adminPost(`/organizations/sso/connections/${w.connectionId}`, { allowIdpInitiated: String(on) });
  expect(res.status).toBe(200);
}

function expectRefused(res: ClientResponse, state: string, t: TestAuth = w.a) {
  expect(res.status).toBeLessThan(500);
  expect(setsSession(res)).toBe(false);
  expect(res.location?.searchParams.get('error')).toBe('SamlResponseRefused');
  const last = t.logger.errors.at(-1) as (Error & { cause?: { state?: string } }) | undefined;
  expect(last?.cause?.state).toBe(state);
}

describe('IdP-initiated SAML sign-in', () => {
  it('is refused while the connection does not allow it (the default)', async () => {
    expect(w.created.allowIdpInitiated).toBe(false);
    expectRefused(await post(unsolicited()), 'failed.unsolicited');
  });

  describe('when the connection allows it', () => {
    beforeAll(() => allow(true));
    afterAll(() => allow(false));

    it('signs in once, and refuses the same response again, on either instance', async () => {
      const form = unsolicited({}, 'bob');
      const first = await post(form);
      expect(setsSession(first), w.a.logger.errors.map((e) => e.message).join('; ')).toBe(true);
      expectRefused(await post(form), 'failed.replayed');
      expectRefused(await post(form, w.b), 'failed.replayed', w.b);
    });

    it('refuses a response that carries an InResponseTo (it answers no request of this browser)', async () => {
      expectRefused(await post(unsolicited({ inResponseTo: '_someone-elses-request' })), 'failed.refused');
    });

    it('still checks the audience, the recipient and the issuer', async () => {
      expectRefused(await post(unsolicited({ audience: 'https://another-sp.example/metadata' })), 'failed.refused');
      expectRefused(await post(unsolicited({ recipient: 'https://another-sp.example/acs' })), 'failed.refused');
      expectRefused(await post(unsolicited({ issuer: 'https://another-idp.example' })), 'failed.refused');
    });
  });

  it('is refused again once the connection turns it off', async () => {
    expectRefused(await post(unsolicited()), 'failed.unsolicited');
  });
});
