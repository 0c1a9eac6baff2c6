// GET {basePath}/webauthn-options/:provider starts a WebAuthn ceremony (its flow pauses with the challenge in
// the flow cookie); GET {basePath}/webauthn-script.js serves the built-in sign-in page's passkey script.
import { InvalidProvider } from '../../core/errors.js';
import { lazy } from '../../core/lazy.js';
import type { AuthRequest } from '../request.js';
import { json } from '../response.js';
import { AuthResponse } from '../../core/fast-response.js';

// The flow routes (and the door behind them) load with the first sign-in request.
const flowRoutes = lazy(() => import('../flow.js'));

const MAX_EMAIL_LENGTH = 320;
const emailShape = /^[^\s@]+@[^\s@]+$/;

function badRequest(req: AuthRequest, message: string): Response {
  return json(req, { error: 'InvalidRequest', message }, 400, { noCache: true });
}

/**
 * The options of a registration or authentication, `{ action, options }`, for `?action=register|authenticate`
 * and an optional `?email=`. Malformed parameters are a 400; everything the flow decides goes through it.
 */
export async function webauthnOptionsRoute(req: AuthRequest, providerId: string): Promise<Response> {
  const provider = req.config.providersById.get(providerId);
  if (!provider) throw new InvalidProvider(`No provider with id "${providerId}".`, { actual: providerId });
  const { action, email } = req.query;
  if (action && action !== 'register' && action !== 'authenticate') return badRequest(req, 'Invalid action: expected "register" or "authenticate".');
  if (email !== undefined && email.trim() !== '' && (email.length > MAX_EMAIL_LENGTH || !emailShape.test(email.trim()))) {
    return badRequest(req, 'Invalid email.');
  }
  return (await flowRoutes()).handleFlow(req, provider, 'options');
}

// The script's text (8 KB) is loaded on the first request for it: an app without a passkey provider never asks,
// so it stays out of the code loaded at start. One promise for the whole process, kept once it resolves.
let scriptText: Promise<string> | undefined;

function loadScript(): Promise<string> {
  scriptText ??= import('../webauthn-script.js').then(
    (m) => m.webauthnScript,
    (error: unknown) => {
      scriptText = undefined; // a failed load is retried by the next request, not remembered
      throw error;
    },
  );
  return scriptText;
}

/** The passkey script as a static asset: cacheable, and never sniffed as anything but JavaScript. */
export async function webauthnScriptRoute(): Promise<Response> {
  return new AuthResponse(await loadScript(), {
    headers: {
      'content-type': 'text/javascript; charset=utf-8',
      'cache-control': 'public, max-age=3600',
      'x-content-type-options': 'nosniff',
    },
  });
}
