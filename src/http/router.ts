// authchart's routes matched by a table made for them, not a general router: a few dozen fixed paths under basePath,
// with one or two `:name` segments and a `**` tail. A general router (and the framework app around it) was the largest
// piece of every app's start bundle and of each request's work, and answered nothing these routes need.
//
// How a path is matched:
// - one trailing slash is ignored (`/auth/session/` is `/auth/session`);
// - a literal route wins over one with parameters, and a literal segment over a parameter at the same place;
// - `**` matches the rest of the path, the empty rest included; it loses to every route without it;
// - a parameter matches one non-empty segment, given to the handler percent-decoded, except an encoded separator
//   (`%2F`, `%5C`), which stays encoded so a parameter can never name a path;
// - a route for every method (`*`) serves a method the path has no route of its own for; a HEAD with no route of its
//   own is served by the GET route.

/** A path's parameters, by name. */
export type RouteParams = Readonly<Record<string, string>>;

/** A match: the handler and the parameters of the route that serves the request. */
export interface RouteMatch<H> {
  handler: H;
  params: RouteParams;
}

interface Pattern<H> {
  /** The path as added. */
  key: string;
  /** The literal segments, and `null` where a parameter stands. */
  segments: readonly (string | null)[];
  names: readonly string[];
  /** Ends in `**`. */
  tail: boolean;
  byMethod: Map<string, H>;
}

/** The method a route serves for any method. */
export const ANY_METHOD = '*';

/** Thrown for a parameter whose percent-encoding is malformed: the request names no route. */
export class MalformedPath extends Error {}

// Encoded separators, possibly with their `%` itself encoded (`%252F`): kept as sent.
const ENCODED_SEPARATOR = /%(?:25)*(?:2f|5c)/gi;

function decodeSegment(value: string): string {
  if (!value.includes('%')) return value;
  let out = '';
  let last = 0;
  try {
    for (const m of value.matchAll(ENCODED_SEPARATOR)) {
      out += decodeURIComponent(value.slice(last, m.index)) + m[0];
      last = m.index + m[0].length;
    }
    return out + decodeURIComponent(value.slice(last));
  } catch {
    throw new MalformedPath(`The path segment "${value}" is not valid percent-encoding.`);
  }
}

// Escapes of characters that mean nothing special in a path (letters, digits, most punctuation): `/auth/%73ession`
// is `/auth/session`. Separators, `%`, `?`, `#` and the like stay escaped.
const NEEDLESS_ESCAPE = /%(?:2[146-9A-E]|3[0-9ABD]|4[0-9A-F]|5[0-9ABDF]|6[1-9A-F]|7[0-9ACE])/gi;

/**
 * The path routes are matched on: the URL's pathname with needless escapes written out. Throws
 * {@link MalformedPath} for a pathname that is not valid percent-encoding.
 *
 * @example
 * routingPath('/auth/%73ession') // '/auth/session'
 */
export function routingPath(pathname: string): string {
  if (!pathname.includes('%')) return pathname;
  try {
    decodeURI(pathname);
  } catch {
    throw new MalformedPath(`The path "${pathname}" is not valid percent-encoding.`);
  }
  return pathname.replace(NEEDLESS_ESCAPE, (m) => String.fromCharCode(Number.parseInt(m.slice(1), 16)));
}

function trimmed(path: string): string {
  return path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
}

/** Routes of one app: added once at start, then matched per request. */
export class RouteTable<H> {
  readonly #literal = new Map<string, Map<string, H>>();
  readonly #patterns: Pattern<H>[] = [];

  /**
   * Adds a route: a path of literal segments, `:name` parameters and an optional `**` tail.
   *
   * @example
   * table.on('GET', '/auth/callback/:provider', handler)
   */
  on(method: string, path: string, handler: H): this {
    const parts = trimmed(path).split('/').slice(1);
    const tail = parts.at(-1) === '**';
    if (tail) parts.pop();
    const names: string[] = [];
    const segments = parts.map((part) => {
      if (!part.startsWith(':')) return part;
      names.push(part.slice(1));
      return null;
    });
    if (!tail && names.length === 0) {
      const key = trimmed(path);
      let byMethod = this.#literal.get(key);
      if (!byMethod) this.#literal.set(key, (byMethod = new Map()));
      byMethod.set(method, handler);
      return this;
    }
    const key = trimmed(path);
    let pattern = this.#patterns.find((p) => p.key === key);
    if (!pattern) {
      this.#patterns.push((pattern = { key, segments, names, tail, byMethod: new Map() }));
      // Most specific first: no tail before a tail, then literal segments before parameters, place by place, then
      // the longer tail prefix first.
      this.#patterns.sort(compareSpecificity);
    }
    pattern.byMethod.set(method, handler);
    return this;
  }

  /**
   * The route serving a method and path (a {@link routingPath}), or undefined when none does.
   * Throws {@link MalformedPath} when the matching route's parameter is not valid percent-encoding.
   *
   * @example
   * table.find('POST', '/auth/callback/github') // { handler, params: { provider: 'github' } }
   */
  find(method: string, pathname: string): RouteMatch<H> | undefined {
    return this.#find(method, pathname) ?? (method === 'HEAD' ? this.#find('GET', pathname) : undefined);
  }

  #find(method: string, pathname: string): RouteMatch<H> | undefined {
    const path = trimmed(pathname);
    const literal = this.#literal.get(path);
    const own = literal && (literal.get(method) ?? literal.get(ANY_METHOD));
    if (own) return { handler: own, params: {} };
    const parts = path.split('/').slice(1);
    for (const pattern of this.#patterns) {
      const handler = pattern.byMethod.get(method) ?? pattern.byMethod.get(ANY_METHOD);
      if (!handler) continue;
      const values = matchSegments(pattern, parts);
      if (!values) continue;
      const params: Record<string, string> = {};
      pattern.names.forEach((name, i) => (params[name] = decodeSegment(values[i]!)));
      return { handler, params };
    }
    return undefined;
  }
}

/** The raw values of a pattern's parameters in a path's segments, or undefined when it does not match. */
function matchSegments(pattern: Pattern<unknown>, parts: readonly string[]): string[] | undefined {
  const { segments, tail } = pattern;
  if (tail ? parts.length < segments.length : parts.length !== segments.length) return undefined;
  const values: string[] = [];
  for (let i = 0; i < segments.length; i++) {
    const want = segments[i];
    const part = parts[i]!;
    if (want === null) {
      if (part === '') return undefined;
      values.push(part);
    } else if (want !== part) return undefined;
  }
  return values;
}

function compareSpecificity(a: Pattern<unknown>, b: Pattern<unknown>): number {
  if (a.tail !== b.tail) return a.tail ? 1 : -1;
  if (a.tail) return b.segments.length - a.segments.length;
  for (let i = 0; i < Math.min(a.segments.length, b.segments.length); i++) {
    const la = a.segments[i] !== null;
    const lb = b.segments[i] !== null;
    if (la !== lb) return la ? -1 : 1;
  }
  return 0;
}
