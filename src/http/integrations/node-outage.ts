// A store outage met by a helper that was handed Node's response (`getSession(req, config, res)`, `auth(req, res)`):
// answered on that response the way every helper answers one (../outage.ts), never handed on to Express.
import type { ServerResponse } from 'node:http';
import type { InternalConfig } from '../../core/config.js';
import type { ServiceUnavailable } from '../../core/errors.js';
import { outageResponse } from '../outage.js';
import { toNodeResponse } from './node-request.js';

/**
 * Answers an outage on a Node response (`getSession(req, config, res)`, `auth(req, res)` in an Express route), then
 * never settles: the request has its answer, so the app's code after the call must not run. Resolving would let it
 * write a second answer, and rejecting would reach Express's error handler, which logs a stack per request.
 *
 * @example
 * if (down && res) return answerOutageOn(res, request, config, down)
 */
export async function answerOutageOn(res: ServerResponse, request: Request, config: InternalConfig, error: ServiceUnavailable): Promise<never> {
  await toNodeResponse(res, await outageResponse(request, config, error));
  return new Promise<never>(() => {});
}
