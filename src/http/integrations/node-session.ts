// The session check on Node without the web layer: `GET {basePath}/session`, which a signed-in app asks on every
// page load, answered from the IncomingMessage through the very route code every request goes through (answerRoute,
// getSessionRoute: the context, the session gate, the callbacks and events, the failures), with no web Request, no
// URL parse and no h3 dispatch. Only requests whose answer is sure to be the same take it; anything unusual (another
// method or path, a lazy config, a Host that is absent, repeated or not plainly a host name) goes the normal way.
import type { IncomingMessage } from 'node:http';
import type { InternalConfig } from '../../core/config.js';
import { getRequestContext, type HeaderReader, type UrlHost } from '../request.js';
import { answerRoute } from '../route.js';
import { getSessionRoute } from '../routes/session.js';

type NodeRequest = IncomingMessage & { originalUrl?: string };

/** Answers a session check straight from a Node request, or returns undefined when the request is not one it takes. */
export type LeanSessionCheck = (req: NodeRequest, makeRequest: () => Request) => Response | Promise<Response> | undefined;

// A basePath every URL parser keeps as it is: segments of unreserved characters, none of them `.` or `..`.
const PLAIN_PATH = /^(?:\/[A-Za-z0-9_~-][A-Za-z0-9._~-]*)*$/;
// A host name or IPv4 address and an optional port, in the form srvx's Node request takes as it is (a subset of its
// HOST_RE). Anything else (IPv6 literals, junk) takes the normal path, whose answer is the reference.
const PLAIN_HOST = /^(?:[A-Za-z0-9_-]+\.)*[A-Za-z0-9_-]+(?::\d{1,5})?$/;

// The URL parser's view of a Host header (`new URL` lower-cases names, drops a default port, refuses a port over
// 65535), per scheme and exact header. Bounded: a deployment sees a handful of hosts; junk only cycles the oldest out.
const HOSTS_KEPT = 16;
const parsedHosts = new Map<string, UrlHost | null>();

function urlHost(origin: string): UrlHost | null {
  let hit = parsedHosts.get(origin);
  if (hit === undefined) {
    try {
      const url = new URL(`${origin}/`);
      hit = { host: url.host, protocol: url.protocol, origin: url.origin };
    } catch {
      hit = null;
    }
    if (parsedHosts.size >= HOSTS_KEPT) parsedHosts.delete(parsedHosts.keys().next().value as string);
    parsedHosts.set(origin, hit);
  }
  return hit;
}

/**
 * How many parsed hosts are kept now (the bound's test).
 * @internal
 */
export const parsedHostCount = (): number => parsedHosts.size;

/** Whether the request carries Host more than once (srvx then reads every value joined; the normal path decides). */
function repeatsHost(raw: string[]): boolean {
  let seen = false;
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i];
    if (name.length === 4 && name.toLowerCase() === 'host') {
      if (seen) return true;
      seen = true;
    }
  }
  return false;
}

/** A Node request's headers read as srvx's Request reads them (one value; Node's joined repeats as they are). */
function headerReader(req: IncomingMessage): HeaderReader {
  return {
    get(name) {
      const value = req.headers[name];
      return typeof value === 'string' ? value : Array.isArray(value) ? value.join(', ') : null;
    },
  };
}

/**
 * The lean session check for one static configuration, or undefined when its basePath is not plain enough to match
 * by string. `makeRequest` must build the Request the normal path would (it is called only if the gate or a
 * callback's context asks for `req.request`).
 *
 * @example
 * const lean = leanSessionCheck(config); const answer = lean?.(req, () => toWebRequest(req)); if (answer) await writeWebResponse(res, await answer)
 */
export function leanSessionCheck(config: InternalConfig): LeanSessionCheck | undefined {
  if (!PLAIN_PATH.test(config.basePath)) return undefined;
  const path = `${config.basePath}/session`;
  return (req, makeRequest) => {
    if (req.method !== 'GET') return undefined;
    // Mounted under a path (Express), req.url lost the mount point: the normal path reads originalUrl then too.
    const target = req.originalUrl ?? req.url ?? '';
    if (!target.startsWith(path) || (target.length !== path.length && target.charCodeAt(path.length) !== 63 /* ? */)) return undefined;
    const host = req.headers.host;
    if (typeof host !== 'string' || !PLAIN_HOST.test(host) || repeatsHost(req.rawHeaders)) return undefined;
    const parsed = urlHost(`${(req.socket as { encrypted?: boolean } | null)?.encrypted ? 'https:' : 'http:'}//${host}`);
    if (!parsed) return undefined;
    return answerRoute(config, 'json', () => getRequestContext(makeRequest, headerReader(req), parsed, config), getSessionRoute);
  };
}
