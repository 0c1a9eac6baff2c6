// Environment inference: which AUTH_* variables configure what. Explicit options always win.

export type Env = Record<string, string | undefined>;

/** The prefix of the variables Auth.js v4 read (`NEXTAUTH_SECRET`, `NEXTAUTH_URL`): aliases the `AUTH_` names win over. */
export const LEGACY_ENV_PREFIX = 'NEXTAUTH';

/** `AUTH_{name}`, else the legacy `NEXTAUTH_{name}`; an empty value counts as unset. */
function withLegacy(env: Env, name: 'SECRET' | 'URL'): string | undefined {
  return env[`AUTH_${name}`] || env[`${LEGACY_ENV_PREFIX}_${name}`] || undefined;
}

/**
 * `AUTH_SECRET` (or the legacy `NEXTAUTH_SECRET`) is the newest secret; `AUTH_SECRET_1..3` are older ones still
 * accepted for decryption.
 */
export function secretsFromEnv(env: Env): string[] {
  return [withLegacy(env, 'SECRET'), env.AUTH_SECRET_1, env.AUTH_SECRET_2, env.AUTH_SECRET_3].filter((s): s is string => typeof s === 'string' && s.length > 0);
}

/** `AUTH_URL`, or the legacy `NEXTAUTH_URL`, with the name it came from (for messages). */
export function authUrlFromEnv(env: Env): { value: string; name: string } | undefined {
  const value = withLegacy(env, 'URL');
  if (value === undefined) return undefined;
  return { value, name: env.AUTH_URL ? 'AUTH_URL' : `${LEGACY_ENV_PREFIX}_URL` };
}

/**
 * Variables by which a deployment platform that sets the Host header itself (no client can choose it) makes itself
 * known, as Auth.js detects them: Vercel (`VERCEL`) and Cloudflare Pages (`CF_PAGES`).
 */
export const HOST_SETTING_PLATFORMS: readonly string[] = ['VERCEL', 'CF_PAGES'];

/** The first platform variable that is set (and not "0"/"false"), or undefined. */
export function hostSettingPlatform(env: Env): string | undefined {
  return HOST_SETTING_PLATFORMS.find((name) => env[name] !== undefined && env[name] !== '' && envFlag(env[name]) !== false);
}

/** Parses a boolean-ish variable strictly: "false" and "0" mean false (unlike a truthiness test). */
export function envFlag(value: string | undefined): boolean | undefined {
  if (value === undefined || value === '') return undefined;
  const v = value.trim().toLowerCase();
  if (v === 'true' || v === '1' || v === 'yes') return true;
  if (v === 'false' || v === '0' || v === 'no') return false;
  return undefined;
}

/** `microsoft-entra-id` -> `MICROSOFT_ENTRA_ID`, the stem of `AUTH_{PROVIDER}_ID` and friends. */
export function envProviderStem(id: string): string {
  return id.replace(/[^a-zA-Z0-9]+/g, '_').toUpperCase();
}

/** The `AUTH_{PROVIDER}_{KEY}` variable for a provider, if set. */
export function providerEnv(env: Env, id: string, key: 'ID' | 'SECRET' | 'ISSUER' | 'KEY'): string | undefined {
  const v = env[`AUTH_${envProviderStem(id)}_${key}`];
  return v === '' ? undefined : v;
}

/**
 * The runtime's environment, read through the one door authchart uses: `process.env` where the runtime has it
 * (Node, Bun, Deno, workerd with `nodejs_compat`), else nothing. Reading never throws: Deno without
 * `--allow-env` (or with it for some names only) refuses each read, which counts as unset here. Read it when a
 * value is needed, never at module level.
 *
 * @example
 * const secret = runtimeEnv().AUTH_SECRET
 */
export function runtimeEnv(): Env {
  let source: Env | undefined;
  try {
    source = (globalThis as { process?: { env?: Env } }).process?.env;
  } catch {
    return {};
  }
  if (!source) return {};
  const env = source;
  const read = (name: string | symbol): string | undefined => {
    if (typeof name !== 'string') return undefined;
    try {
      const value = env[name];
      return typeof value === 'string' ? value : undefined;
    } catch {
      return undefined;
    }
  };
  return new Proxy({} as Env, {
    get: (_, name) => read(name),
    has: (_, name) => read(name) !== undefined,
    ownKeys: () => {
      try {
        return Reflect.ownKeys(env).filter((k) => typeof k === 'string');
      } catch {
        return [];
      }
    },
    getOwnPropertyDescriptor: (_, name) => {
      const value = read(name);
      return value === undefined ? undefined : { value, enumerable: true, configurable: true, writable: false };
    },
  });
}
