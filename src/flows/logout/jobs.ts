// The two logouts a provider asks for, as jobs of the runtime's door: the back-channel logout (a logout token POSTed
// by the provider) and the RP-initiated logout (the browser sent to the provider at sign-out, and back), which pauses
// in the provider's logout slot.
import { defineJob } from '../runtime/job.js';
import { oauthProviderOf } from '../oauth/steps.js';
import { backchannelLogoutMachine } from './backchannel-machine.js';
import { rpLogoutMachine } from './rp-machine.js';

/** How old a logout token's `iat` may be (seconds). */
const LOGOUT_TOKEN_MAX_AGE = 300;

/** The back-channel logout (event `LOGOUT_TOKEN` with the token). */
export const backchannelLogoutJob = /* @__PURE__ */ defineJob({
  machine: backchannelLogoutMachine,
  version: 1,
  input: (req, provider) => ({ deps: { req, provider: oauthProviderOf(req, provider), now: () => Date.now(), maxAgeSeconds: LOGOUT_TOKEN_MAX_AGE } }),
});

/** What an RP-initiated logout starts with: the signed-in user and where the browser goes after. */
export interface RpLogoutArgs {
  userId: string;
  callbackUrl: string;
}

/** The RP-initiated logout (`SIGN_OUT` at sign-out, `RETURN` with the provider's state when the browser comes back). */
export const rpLogoutJob = /* @__PURE__ */ defineJob({
  machine: rpLogoutMachine,
  version: 1,
  pausesIn: 'logout',
  input: (req, provider, args: RpLogoutArgs | undefined) => ({
    deps: { req, provider: oauthProviderOf(req, provider), userId: args?.userId ?? '' },
    callbackUrl: args?.callbackUrl ?? '',
    startedAt: Date.now(),
  }),
});
