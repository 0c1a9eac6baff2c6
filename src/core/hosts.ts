// Which hosts a deployment answers for: the shape every believed Host must have, and the `trustHost` allow-list,
// parsed once with the configuration and matched on each request. Hosts compare in ASCII (IDN as punycode), lower case.
import { envFlag } from './env.js';
import { UntrustedHost } from './errors.js';

/**
 * The `trustHost` allow-list, parsed: exact hosts (`host` or `host:port`) and wildcard parents (`*.parent`
 * matches exactly one label below `parent`). A pattern without a port (or with `:80`/`:443`) matches only the
 * scheme's default port; `localhost:3000` names its port.
 */
export interface TrustedHosts {
  /** The patterns as configured, for messages. */
  readonly patterns: readonly string[];
  readonly exact: ReadonlySet<string>;
  /** `parent` or `parent:port` of each `*.` pattern. */
  readonly parents: ReadonlySet<string>;
}

/** A host as a browser's origin names it: ASCII host name, lower case, default port omitted. */
export interface ParsedHost {
  /** `hostname[:port]`. */
  host: string;
  /** `{proto}://{host}`. */
  origin: string;
}

const MAX_HOST_LENGTH = 300;
// Before URL parsing, which would percent-decode (`ex%61mple.com`), take userinfo (`a@b`) or cut at `/`, `?`, `#`.
const RAW_HOST = /^(?:\[[0-9A-Fa-f:.]+\]|[^\x00-\x20\x7f/\\?#@%:[\]]+)(?::\d{1,5})?$/;
// After URL parsing: DNS-style labels (with `_`, which some internal names carry), no empty label, no trailing dot.
const LABEL = /^[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?$/;

function isHostName(hostname: string): boolean {
  if (hostname.startsWith('[')) return true; // an IPv6 literal the URL parser accepted
  return hostname.split('.').every((label) => LABEL.test(label));
}

/**
 * Parses a Host (or X-Forwarded-Host) value for `proto`, or undefined when it is not the shape of a host: a name
 * of DNS labels (IDN allowed) or an IP literal, and an optional port. Nothing else (userinfo, path, spaces, `%`).
 *
 * @example
 * parseHost('Bücher.Example:443', 'https') // { host: 'xn--bcher-kva.example', origin: 'https://xn--bcher-kva.example' }
 * parseHost('evil.test/x?', 'https') // undefined
 */
export function parseHost(raw: string, proto: 'http' | 'https'): ParsedHost | undefined {
  if (raw.length === 0 || raw.length > MAX_HOST_LENGTH || !RAW_HOST.test(raw)) return undefined;
  let url: URL;
  try {
    url = new URL(`${proto}://${raw}`);
  } catch {
    return undefined;
  }
  if (!isHostName(url.hostname)) return undefined;
  return { host: url.host, origin: url.origin };
}

/**
 * One configured pattern in its compared form, or undefined when it is not a host pattern. It goes through the
 * same parser as a request's host (the URL host parser: UTS #46 IDN to ASCII, lower case), so both sides agree.
 */
function normalizePattern(pattern: string): { wildcard: boolean; key: string } | undefined {
  const trimmed = pattern.trim();
  const wildcard = trimmed.startsWith('*.');
  const parsed = parseHost(wildcard ? trimmed.slice(2) : trimmed, 'https');
  if (!parsed) return undefined;
  // `:443` is already gone (the default port of https); `:80` is the other scheme's default, and goes too.
  const key = parsed.host.endsWith(':80') ? parsed.host.slice(0, -3) : parsed.host;
  const hostname = key.replace(/:\d+$/, '');
  // A wildcard needs a parent of two labels at least, and never stands for part of an IP address.
  if (wildcard && (hostname.startsWith('[') || !hostname.includes('.') || /^[\d.]+$/.test(hostname))) return undefined;
  return { wildcard, key };
}

/**
 * Parses the `trustHost` allow-list; throws UntrustedHost naming the first entry that is not a host pattern.
 * Patterns: `app.example.com`, `app.example.com:8443`, `localhost:3000`, `[::1]:3000`, and `*.preview.example.com`
 * (exactly one label in place of `*`: `pr-1.preview.example.com`, not `preview.example.com`, not `a.b.preview...`).
 *
 * @example
 * const hosts = parseTrustedHosts(['app.example.com', '*.preview.example.com'])
 * isTrustedHost(hosts, 'pr-7.preview.example.com') // true
 */
export function parseTrustedHosts(patterns: readonly string[]): TrustedHosts {
  const exact = new Set<string>();
  const parents = new Set<string>();
  for (const pattern of patterns) {
    const normalized = typeof pattern === 'string' ? normalizePattern(pattern) : undefined;
    if (!normalized) {
      throw new UntrustedHost(`trustHost: "${String(pattern)}" is not a host pattern (a host, host:port, or *.parent.domain).`, { actual: pattern });
    }
    (normalized.wildcard ? parents : exact).add(normalized.key);
  }
  return { patterns: [...patterns], exact, parents };
}

/**
 * Whether a parsed host (`ParsedHost.host`) is on the allow-list. `*.example.com` never matches `example.com`,
 * `evilexample.com`, `example.com.attacker.net` or `a.b.example.com`.
 *
 * @example
 * isTrustedHost(parseTrustedHosts(['*.example.com']), 'evilexample.com') // false
 */
export function isTrustedHost(hosts: TrustedHosts, host: string): boolean {
  if (hosts.exact.has(host)) return true;
  if (hosts.parents.size === 0 || host.startsWith('[')) return false;
  const dot = host.indexOf('.');
  return dot > 0 && hosts.parents.has(host.slice(dot + 1));
}

/**
 * Reads `trustHost` / AUTH_TRUST_HOST: a boolean, or an allow-list (an array, or a comma-separated variable).
 * "true"/"1"/"yes" and "false"/"0"/"no" keep their meaning; an empty list trusts no host. Undefined when unset.
 *
 * @example
 * trustHostFromEnv('app.example.com, *.preview.example.com') // ['app.example.com', '*.preview.example.com']
 */
export function trustHostFromEnv(value: string | undefined): boolean | string[] | undefined {
  const asFlag = envFlag(value);
  if (asFlag !== undefined || value === undefined || value.trim() === '') return asFlag;
  return value.split(',').map((s) => s.trim()).filter(Boolean);
}

/**
 * Origins matched by scheme and host pattern (`https://*.preview.example.com`, `http://localhost:3001`): the
 * `redirectProxyOrigins` allow-list. Host patterns mean what they mean in `trustHost`.
 */
export interface OriginPatterns {
  readonly patterns: readonly string[];
  readonly https?: TrustedHosts;
  readonly http?: TrustedHosts;
}

const ORIGIN_PATTERN = /^(https?):\/\/([^/?#]+)\/?$/i;

/**
 * Parses an allow-list of origin patterns; throws UntrustedHost naming `option` and the first entry that is not
 * `scheme://host-pattern` (no path, query or userinfo).
 *
 * @example
 * const origins = parseOriginPatterns(['https://*.preview.example.com'], 'redirectProxyOrigins')
 * matchesOrigin(origins, 'https://pr-7.preview.example.com') // true
 * matchesOrigin(origins, 'http://pr-7.preview.example.com') // false
 */
export function parseOriginPatterns(patterns: readonly string[], option: string): OriginPatterns {
  const byScheme: Record<'http' | 'https', string[]> = { http: [], https: [] };
  for (const pattern of patterns) {
    const match = typeof pattern === 'string' ? ORIGIN_PATTERN.exec(pattern.trim()) : null;
    const host = match?.[2];
    if (!match || !host || host.includes('@') || normalizePattern(host) === undefined) {
      throw new UntrustedHost(`${option}: "${String(pattern)}" is not an origin pattern (https://host, https://host:port or https://*.parent.domain).`, { actual: pattern });
    }
    byScheme[match[1]!.toLowerCase() as 'http' | 'https'].push(host);
  }
  return {
    patterns: [...patterns],
    https: byScheme.https.length ? parseTrustedHosts(byScheme.https) : undefined,
    http: byScheme.http.length ? parseTrustedHosts(byScheme.http) : undefined,
  };
}

/**
 * Whether an origin (`URL.origin` form: scheme, ASCII lower-case host, default port omitted) is on the list.
 *
 * @example
 * matchesOrigin(parseOriginPatterns(['https://app.example.com'], 'x'), 'https://app.example.com:8443') // false
 */
export function matchesOrigin(origins: OriginPatterns, origin: string): boolean {
  const url = URL.parse(origin);
  if (!url || url.origin !== origin) return false;
  const hosts = url.protocol === 'https:' ? origins.https : url.protocol === 'http:' ? origins.http : undefined;
  if (!hosts) return false;
  // Patterns without a port name the scheme's default; `url.host` already omits it, and normalizePattern drops `:80`.
  return isTrustedHost(hosts, url.host);
}
