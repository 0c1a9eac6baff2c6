// Environment inference: which AUTH_* variables configure what. Explicit options always win.

export type Env = Record<string, string | undefined>;

/** `AUTH_SECRET` is the newest secret; `AUTH_SECRET_1..3` are older ones still accepted for decryption. */
export function secretsFromEnv(env: Env): string[] {
  return [env.AUTH_SECRET, env.AUTH_SECRET_1, env.AUTH_SECRET_2, env.AUTH_SECRET_3].filter((s): s is string => typeof s === 'string' && s.length > 0);
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
