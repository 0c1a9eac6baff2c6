// POST {basePath}/backchannel-logout/:provider: the provider's back-channel logout. Answers 200 when the sessions
// the logout token names are ended, 400 `invalid_request` for a token that is refused (invalid, replayed), 404 for
// an unknown provider, 501 when the adapter cannot find sessions by provider session, 503 when the store failed.
import { AuthError, InvalidCheck } from '../../core/errors.js';
import { jobs, step, type DoorAnswer } from '../../flows/registry.js';
import type { TraceEntry } from '../../flows/runtime/trace.js';
import type { AuthRequest } from '../request.js';
import { json } from '../response.js';
import { keepsValidAfter } from '../../session/valid-after.js';

export async function backchannelLogoutRoute(req: AuthRequest, providerId: string): Promise<Response> {
  const provider = req.config.providers.find((p) => p.id === providerId && (p.type === 'oidc' || p.type === 'oauth'));
  if (!provider) return json(req, { error: 'invalid_request', error_description: 'Unknown provider.' }, 404, { noCache: true });
  const adapter = req.config.adapter;
  // Either the adapter finds the sessions (provider_sessions), or JWT sessions found through the flow store end by
  // "sessions valid after", which needs a place that keeps those times.
  const byAdapter = !!adapter?.findProviderSessionUsers && !!adapter.useLogoutToken;
  const byStore = !adapter?.findProviderSessionUsers && req.config.session.strategy === 'jwt' && keepsValidAfter(req);
  if (!byAdapter && !byStore) {
    return json(req, { error: 'unsupported', error_description: 'Back-channel logout needs an adapter with findProviderSessionUsers and useLogoutToken, or JWT sessions with a session.validAfter store.' }, 501, { noCache: true });
  }
  const answer = await runBackchannelLogout(req, provider, req.body.logout_token);
  if (answer.status === 'done') return json(req, {}, 200, { noCache: true });
  const error = answer.status === 'failed' ? answer.error : new InvalidCheck('The logout did not settle.');
  req.config.logger.error(error);
  if (error instanceof InvalidCheck) return json(req, { error: 'invalid_request', error_description: 'The logout token was refused.' }, 400, { noCache: true });
  return json(req, { error: 'temporarily_unavailable' }, error instanceof AuthError && error.type === 'AdapterError' ? 503 : 400, { noCache: true });
}

/** Runs the back-channel logout machine for one logout token; its transitions go to `trace` when one is given. */
export async function runBackchannelLogout(req: AuthRequest, provider: AuthRequest['config']['providers'][number], token: unknown, trace?: TraceEntry[]): Promise<DoorAnswer> {
  return step(req, { kind: 'job', job: await jobs.backchannelLogout(), provider, ...(trace ? { trace } : {}) }, { type: 'LOGOUT_TOKEN', token });
}
