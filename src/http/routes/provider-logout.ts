// RP-initiated logout over HTTP: at sign-out, the door runs the provider-logout job for the first opted-in provider
// the user has an ID token from; it pauses in the provider's logout slot and the browser goes to the provider.
// GET {basePath}/signout-callback/:provider resumes it with the returned state.
import { InvalidCheck } from '../../core/errors.js';
import { jobs, step } from '../../flows/registry.js';
import { signedInUserId } from '../../session/gate.js';
import type { AuthRequest } from '../request.js';
import { redirect } from '../response.js';

const optedIn = (req: AuthRequest) => req.config.providers.filter((p) => p.rpInitiatedLogout === true && (p.type === 'oidc' || p.type === 'oauth'));

/**
 * Where to send the browser to end the provider session of the signed-in user, or undefined (no opted-in provider,
 * nobody signed in, no ID token, no end_session_endpoint). Call before the local session is ended.
 */
export async function startProviderLogout(req: AuthRequest, callbackUrl: string): Promise<string | undefined> {
  const opted = optedIn(req);
  if (opted.length === 0) return undefined;
  const userId = await signedInUserId(req);
  if (!userId) return undefined;
  const job = await jobs.rpLogout();
  for (const provider of opted) {
    const answer = await step(req, { kind: 'job', job, provider, args: { userId, callbackUrl } }, { type: 'SIGN_OUT' });
    if (answer.status === 'paused' && answer.response.kind === 'redirect') return answer.response.url;
  }
  return undefined;
}

/** GET {basePath}/signout-callback/:provider: the provider sent the browser back; the state must match. */
export async function providerLogoutReturn(req: AuthRequest, providerId: string): Promise<Response> {
  const provider = optedIn(req).find((p) => p.id === providerId);
  if (!provider) throw new InvalidCheck('No provider sign-out of this provider is pending in this browser.', { expected: 'an opted-in provider', actual: providerId });
  const state = typeof req.query.state === 'string' ? req.query.state : undefined;
  const answer = await step(req, { kind: 'job', job: await jobs.rpLogout(), provider, resume: true }, { type: 'RETURN', state, now: Date.now() });
  if (answer.status === 'done') return redirect(req, (answer.output as { url: string }).url);
  throw answer.status === 'failed' ? answer.error : new InvalidCheck('The provider sign-out did not finish.');
}
