// GET|POST {basePath}/callback/:provider: where providers (and the credentials form) come back to.
import { InvalidProvider } from '../../core/errors.js';
import { handleFlow } from '../flow.js';
import type { AuthRequest } from '../request.js';

export async function callbackRoute(req: AuthRequest, providerId: string): Promise<Response> {
  const provider = req.config.providersById.get(providerId);
  if (!provider) throw new InvalidProvider(`No provider with id "${providerId}".`, { actual: providerId });
  return handleFlow(req, provider, 'callback');
}
