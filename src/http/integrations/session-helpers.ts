// Reading the session from application code, whatever the request object: a web Request, an h3
// event, or a Node IncomingMessage. Cookie refreshes are forwarded where the response is reachable.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { HTTPError, type H3Event } from 'h3';
import type { Session } from '../../core/types.js';
import type { ConfigInput } from '../auth.js';
import { appendNodeSetCookie, H3V1CompatibleError, isH3V1Event, type H3V1Event } from './h3-v1.js';
import { instanceFor } from './instances.js';
import { fromNodeRequest } from './node-request.js';
import { outageHttpError, outageOf } from '../outage.js';
import { answerOutageOn } from './node-outage.js';

/**
 * An h3 v2 event as authchart reads it. Structural, so that the events of another h3 2.x copy type-check too (Nitro
 * 3.0.0 pins a 2.0.1 release candidate, whose H3Event is not h3 2.0.8's class).
 */
export interface H3EventLike {
  req: Request;
  url: URL;
  res: { headers: Headers };
}

/** A web Request, an h3 event (v2, or v1 as Nitro 2 and Nuxt pass it), or a Node request. */
export type AnyRequest = Request | H3EventLike | H3V1Event | IncomingMessage;

export function isH3Event(input: AnyRequest): input is H3Event {
  return typeof (input as H3Event).req === 'object' && typeof (input as H3Event).res === 'object' && (input as H3Event).url instanceof URL;
}

export function isWebRequest(input: AnyRequest): input is Request {
  const r = input as unknown as Request;
  return input instanceof Request || (typeof r.url === 'string' && typeof r.headers?.get === 'function');
}

export async function toRequest(input: AnyRequest): Promise<Request> {
  if (isH3Event(input)) return input.req as unknown as Request;
  if (isH3V1Event(input)) return fromNodeRequest(input.node.req);
  if (isWebRequest(input)) return input;
  // Only headers matter for reading a session: the lazy wrapper never touches the Node body stream.
  return fromNodeRequest(input as IncomingMessage);
}

/**
 * The session of a request, or null.
 *
 * @example
 * app.get('/me', async (event) => (await getSession(event, config)) ?? { signedIn: false })
 * // Node/Express: pass `res` so a refreshed or cleared session cookie reaches the browser, and so that a store
 * // outage is answered there (503, the outage page or JSON) instead of reaching Express; the call then never returns.
 * app.get('/me', async (req, res) => res.json(await getSession(req, config, res)))
 */
export async function getSession(input: AnyRequest, config: ConfigInput, res?: ServerResponse): Promise<Session | null> {
  const instance = instanceFor(config);
  const request = await toRequest(input);
  let read: Awaited<ReturnType<typeof instance.readSession>>;
  try {
    read = await instance.readSession(request);
  } catch (err) {
    // In h3 an outage is the 503 answer (an HTTPError h3 does not log); with a Node response it is answered there
    // (and the call never settles); otherwise the typed error is the app's.
    const down = outageOf(err);
    const h3v1 = isH3V1Event(input);
    if (!down) throw err;
    if (h3v1 || isH3Event(input)) throw outageHttpError((await instance.resolve(request)).config, down, h3v1);
    if (res && !res.headersSent) return answerOutageOn(res, request, (await instance.resolve(request)).config, down);
    throw err;
  }
  const { session, setCookie } = read;
  // A Node response, when given and still open, carries the refreshed (or cleared) session cookie.
  if (res) appendNodeSetCookie(res, setCookie);
  else if (isH3V1Event(input)) appendNodeSetCookie(input.node.res, setCookie);
  if (isH3Event(input)) {
    // errHeaders too: h3 sends only those with an error response (e.g. requireSession's 401). h3 2.0.1 release
    // candidates (what Nitro 3.0.0 pins) have none.
    for (const line of setCookie) {
      input.res.headers.append('set-cookie', line);
      (input.res as { errHeaders?: Headers }).errHeaders?.append('set-cookie', line);
    }
  }
  return session;
}

/**
 * The session of an h3 event, or a 401 HTTPError.
 *
 * @example
 * app.get('/api/private', async (event) => { const session = await requireSession(event, config); return session.user })
 */
export async function requireSession(event: H3EventLike | H3V1Event, config: ConfigInput): Promise<Session> {
  const session = await getSession(event, config);
  if (!session?.user) {
    const Err = isH3V1Event(event) ? H3V1CompatibleError : HTTPError;
    throw new Err({ status: 401, statusText: 'Unauthorized', message: 'Sign-in required.' });
  }
  return session;
}
