// A small browser-like cookie store for end-to-end tests: cookies live per host (host:port), Path and Domain are
// ignored on purpose, expiry and deletions (Max-Age=0, past Expires) are honoured against an injectable clock.

/** One parsed `Set-Cookie` line. Attribute names are normalised; unknown attributes are kept in `extra`. */
export interface ParsedSetCookie {
  name: string;
  value: string;
  /** Max-Age in seconds, as sent. */
  maxAge?: number;
  /** Expires as epoch milliseconds, as sent. */
  expires?: number;
  path?: string;
  domain?: string;
  httpOnly: boolean;
  secure: boolean;
  sameSite?: 'Strict' | 'Lax' | 'None';
  partitioned: boolean;
  extra: Record<string, string>;
}

/** A cookie held by the jar. */
export interface StoredCookie {
  name: string;
  value: string;
  /** The `host` (hostname:port, default port omitted) the cookie belongs to. */
  host: string;
  /** Epoch milliseconds after which the cookie is gone; undefined for a session cookie. */
  expiresAt?: number;
  httpOnly: boolean;
  secure: boolean;
  sameSite?: 'Strict' | 'Lax' | 'None';
  path?: string;
}

/**
 * Parses one `Set-Cookie` header line. Returns undefined for a line without `name=`.
 *
 * @example parseSetCookie('sid=abc; Path=/; HttpOnly').httpOnly // true
 */
export function parseSetCookie(line: string): ParsedSetCookie | undefined {
  const [pair = '', ...attributes] = line.split(';');
  const eq = pair.indexOf('=');
  if (eq <= 0) return undefined;
  const cookie: ParsedSetCookie = {
    name: pair.slice(0, eq).trim(),
    // The value is kept verbatim (no URI decoding): a browser sends back exactly what it received.
    value: pair.slice(eq + 1).trim(),
    httpOnly: false,
    secure: false,
    partitioned: false,
    extra: {},
  };
  for (const attribute of attributes) {
    const at = attribute.indexOf('=');
    const key = (at === -1 ? attribute : attribute.slice(0, at)).trim();
    const val = at === -1 ? '' : attribute.slice(at + 1).trim();
    switch (key.toLowerCase()) {
      case 'max-age': {
        // RFC 6265 §5.2.2: a non-integer Max-Age is ignored rather than treated as 0.
        if (/^-?\d+$/.test(val)) cookie.maxAge = Number(val);
        break;
      }
      case 'expires': {
        const time = Date.parse(val);
        if (!Number.isNaN(time)) cookie.expires = time;
        break;
      }
      case 'path':
        cookie.path = val;
        break;
      case 'domain':
        cookie.domain = val;
        break;
      case 'httponly':
        cookie.httpOnly = true;
        break;
      case 'secure':
        cookie.secure = true;
        break;
      case 'partitioned':
        cookie.partitioned = true;
        break;
      case 'samesite': {
        const lower = val.toLowerCase();
        if (lower === 'strict') cookie.sameSite = 'Strict';
        else if (lower === 'lax') cookie.sameSite = 'Lax';
        else if (lower === 'none') cookie.sameSite = 'None';
        break;
      }
      default:
        if (key) cookie.extra[key] = val;
    }
  }
  return cookie;
}

/** Options for {@link CookieJar}. */
export interface CookieJarOptions {
  /** Clock used for expiry, in epoch milliseconds. Defaults to `Date.now()` so a frozen `Date` applies here too. */
  now?: () => number;
}

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

/** Turns a URL, a `host:port` string or a hostname into the jar's host key. */
function hostKey(hostOrUrl: string | URL): string {
  if (hostOrUrl instanceof URL) return hostOrUrl.host.toLowerCase();
  if (hostOrUrl.includes('://')) return new URL(hostOrUrl).host.toLowerCase();
  return hostOrUrl.toLowerCase();
}

/**
 * Cookies per host, as a browser would keep them for a test. Secure cookies are only sent to https URLs or to
 * loopback hosts (as Chromium does), so a test over plain http on a non-loopback name notices a Secure cookie.
 *
 * @example
 * const jar = new CookieJar();
 * jar.setFromResponse('http://app.test/login', res);
 * fetch(url, { headers: { cookie: jar.header(url) } });
 */
/** A browser's limit on a cookie's name and value together, in bytes. */
export const MAX_COOKIE_BYTES = 4096;

export class CookieJar {
  readonly #hosts = new Map<string, Map<string, StoredCookie>>();
  readonly #now: () => number;

  constructor(options: CookieJarOptions = {}) {
    this.#now = options.now ?? (() => Date.now());
  }

  /** Applies `Set-Cookie` lines received from `url`. Returns the parsed cookies (deletions included). */
  setFromLines(url: string | URL, lines: Iterable<string>): ParsedSetCookie[] {
    const host = hostKey(url);
    const parsed: ParsedSetCookie[] = [];
    for (const line of lines) {
      const cookie = parseSetCookie(line);
      if (!cookie) continue;
      parsed.push(cookie);
      // A browser ignores a cookie whose name and value pass 4096 bytes (RFC 6265bis §5.7): so does the jar, so a
      // test cannot pass on a cookie no browser would keep.
      if (Buffer.byteLength(cookie.name) + Buffer.byteLength(cookie.value) > MAX_COOKIE_BYTES) continue;
      const now = this.#now();
      // Max-Age wins over Expires (RFC 6265 §5.3 step 3).
      const expiresAt =
        cookie.maxAge !== undefined ? now + cookie.maxAge * 1000 : cookie.expires !== undefined ? cookie.expires : undefined;
      if (expiresAt !== undefined && expiresAt <= now) {
        this.delete(cookie.name, host);
        continue;
      }
      this.#bucket(host).set(cookie.name, {
        name: cookie.name,
        value: cookie.value,
        host,
        expiresAt,
        httpOnly: cookie.httpOnly,
        secure: cookie.secure,
        sameSite: cookie.sameSite,
        path: cookie.path,
      });
    }
    return parsed;
  }

  /** Applies every `Set-Cookie` of a response received from `url`; returns the raw lines. */
  setFromResponse(url: string | URL, res: Response): string[] {
    const lines = res.headers.getSetCookie();
    this.setFromLines(url, lines);
    return lines;
  }

  /** The value for a `cookie:` request header to `url` ('' when there is nothing to send). */
  header(url: string | URL): string {
    const target = url instanceof URL ? url : new URL(url);
    const secureContext = target.protocol === 'https:' || LOOPBACK.has(target.hostname);
    return this.all(target)
      .filter((cookie) => secureContext || !cookie.secure)
      .map((cookie) => `${cookie.name}=${cookie.value}`)
      .join('; ');
  }

  /** A cookie's value; without `host`, the first live cookie of that name on any host. */
  get(name: string, host?: string | URL): string | undefined {
    return this.getCookie(name, host)?.value;
  }

  /** The whole stored cookie (attributes included); without `host`, the first live one on any host. */
  getCookie(name: string, host?: string | URL): StoredCookie | undefined {
    const hosts = host === undefined ? [...this.#hosts.keys()] : [hostKey(host)];
    for (const key of hosts) {
      const cookie = this.#hosts.get(key)?.get(name);
      if (cookie && this.#alive(cookie)) return cookie;
    }
    return undefined;
  }

  /** Stores a cookie by hand, e.g. to replay a stolen or tampered cookie. */
  set(name: string, value: string, host: string | URL, attributes: Partial<Omit<StoredCookie, 'name' | 'value' | 'host'>> = {}): void {
    const key = hostKey(host);
    this.#bucket(key).set(name, { httpOnly: false, secure: false, ...attributes, name, value, host: key });
  }

  /** Removes a cookie from one host, or from every host when `host` is omitted. */
  delete(name: string, host?: string | URL): void {
    if (host !== undefined) {
      this.#hosts.get(hostKey(host))?.delete(name);
      return;
    }
    for (const bucket of this.#hosts.values()) bucket.delete(name);
  }

  /** Live cookies of one host, or of every host when `host` is omitted. */
  all(host?: string | URL): StoredCookie[] {
    const buckets = host === undefined ? [...this.#hosts.values()] : [this.#hosts.get(hostKey(host))];
    const out: StoredCookie[] = [];
    for (const bucket of buckets) {
      if (!bucket) continue;
      for (const cookie of bucket.values()) {
        if (this.#alive(cookie)) out.push(cookie);
        else bucket.delete(cookie.name);
      }
    }
    return out;
  }

  /** Forgets every cookie (all hosts). */
  clear(): void {
    this.#hosts.clear();
  }

  #alive(cookie: StoredCookie): boolean {
    return cookie.expiresAt === undefined || cookie.expiresAt > this.#now();
  }

  #bucket(host: string): Map<string, StoredCookie> {
    let bucket = this.#hosts.get(host);
    if (!bucket) {
      bucket = new Map();
      this.#hosts.set(host, bucket);
    }
    return bucket;
  }
}
