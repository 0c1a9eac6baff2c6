// `authchart doctor`: checks a configuration the way start-up would, but names every problem at once instead of
// throwing the first: the secret, how the host is trusted, the adapter methods the enabled features call, then
// whatever else resolving the configuration refuses.
import { assertAdapter } from '../core/adapter-wrap.js';
import { adapterNeedsOf, resolveConfig } from '../core/config.js';
import { authUrlFromEnv, envProviderStem, hostSettingPlatform, providerEnv, secretsFromEnv, type Env } from '../core/env.js';
import { AuthError } from '../core/errors.js';
import { trustHostFromEnv } from '../core/hosts.js';
import type { AuthConfig } from '../core/options.js';

/** One finding: `ok` lines say what was checked, `problem` lines what must change. */
export interface Finding {
  level: 'ok' | 'problem';
  check: 'secret' | 'host' | 'provider' | 'adapter' | 'config';
  message: string;
}

const MIN_SECRET = 32;

/**
 * Every finding for a configuration, read against `env` as the app would read it.
 *
 * @example
 * const problems = doctor(config, process.env).filter((f) => f.level === 'problem')
 */
export function doctor(config: AuthConfig, env: Env): Finding[] {
  const findings: Finding[] = [];
  const ok = (check: Finding['check'], message: string) => findings.push({ level: 'ok', check, message });
  const problem = (check: Finding['check'], message: string) => findings.push({ level: 'problem', check, message });

  const production = env.NODE_ENV === 'production';
  const secrets = config.secret === undefined ? secretsFromEnv(env) : [config.secret].flat().filter((s) => typeof s === 'string' && s.length > 0);
  if (secrets.length === 0 && !production) ok('secret', 'secret: none, so a random one per start in development (sessions end on restart); production refuses to start without AUTH_SECRET');
  else if (secrets.length === 0) problem('secret', 'No secret in production: set AUTH_SECRET (`npx authchart secret` prints one) or the `secret` option.');
  else {
    const short = secrets.filter((s) => s.length < MIN_SECRET);
    if (short.length > 0) problem('secret', `${short.length === 1 ? 'A secret is' : `${short.length} secrets are`} shorter than ${MIN_SECRET} characters (${short.map((s) => s.length).join(', ')}): use \`npx authchart secret\`.`);
    else ok('secret', `secret: ${secrets.length} of ${MIN_SECRET}+ characters`);
  }

  const authUrl = authUrlFromEnv(env);
  const trust = config.trustHost ?? trustHostFromEnv(env.AUTH_TRUST_HOST);
  const platform = hostSettingPlatform(env);
  if (authUrl !== undefined && !URL.canParse(authUrl.value)) problem('host', `${authUrl.name} is no URL: ${JSON.stringify(authUrl.value)}.`);
  else if (authUrl !== undefined) ok('host', `host: from ${authUrl.name} (${authUrl.value})`);
  else if (trust !== undefined && trust !== false) ok('host', 'host: taken from the request (trustHost)');
  else if (platform !== undefined) ok('host', `host: set by the platform (${platform})`);
  else if (!production) ok('host', 'host: taken from the request in development (production needs AUTH_URL or trustHost)');
  else problem('host', 'The host is not trusted: set AUTH_URL to the app\'s public URL, or `trustHost: true` (AUTH_TRUST_HOST=true) behind a proxy that sets the Host header.');

  const providers = (config.providers ?? []).map((p) => (typeof p === 'function' ? (p as () => DoctoredProvider)() : p)) as DoctoredProvider[];
  for (const p of providers) {
    const said = providerProblem(p, config, env);
    if (said) problem('provider', said);
  }
  const needs = adapterNeedsOf(config, providers);
  const features = Object.entries(needs).filter(([, on]) => on).map(([name]) => name);
  try {
    assertAdapter(config.adapter, needs);
    ok('adapter', features.length === 0 ? 'adapter: no feature needs one' : `adapter: has every method ${features.join(', ')} call`);
  } catch (error) {
    problem('adapter', error instanceof Error ? error.message : String(error));
  }

  // What start-up itself refuses (duplicate ids, a credentials provider without authorize, ...), once the checks
  // above are out of the way so the same problem is not named twice.
  try {
    resolveConfig({ ...config, secret: 's'.repeat(MIN_SECRET), trustHost: true, adapter: findings.some((f) => f.check === 'adapter' && f.level === 'problem') ? undefined : config.adapter, logger: { warn: () => {}, error: () => {}, debug: () => {} } }, { env: { ...env, NODE_ENV: 'development' } });
    ok('config', `config: ${providers.length} provider${providers.length === 1 ? '' : 's'} resolve`);
  } catch (error) {
    const named = error instanceof AuthError ? `${error.type}: ${error.message}` : String(error);
    if (!(error instanceof AuthError && (error.type === 'MissingAdapter' || error.type === 'MissingAdapterMethods'))) problem('config', named);
  }
  return findings;
}

/** What the doctor reads of a provider. */
interface DoctoredProvider {
  id?: string;
  type: string;
  credentials?: Record<string, unknown>;
  clientId?: string;
  clientSecret?: string;
  client?: { token_endpoint_auth_method?: string };
}

/** Client authentication methods that send no client secret. */
const NO_SECRET_METHODS = new Set(['none', 'private_key_jwt']);

/** What a provider lacks to work, said as what to add; undefined when it lacks nothing the doctor can see. */
function providerProblem(p: DoctoredProvider, config: AuthConfig, env: Env): string | undefined {
  if (typeof p?.id !== 'string') return undefined; // resolveConfig names it below
  if (p.type === 'credentials' && Object.keys(p.credentials ?? {}).length === 0 && !config.pages?.signIn) {
    return `Credentials provider "${p.id}" has no fields, so the built-in sign-in page draws an empty form: add \`credentials: { email: { type: 'email' }, password: { type: 'password' } }\` (the fields authorize reads), or your own page with \`pages: { signIn: '/login' }\`.`;
  }
  if (p.type !== 'oauth' && p.type !== 'oidc') return undefined;
  const stem = `AUTH_${envProviderStem(p.id)}`;
  const missing: string[] = [];
  if (!(p.clientId ?? providerEnv(env, p.id, 'ID'))) missing.push(`a client id (${stem}_ID, or \`clientId\`)`);
  if (!NO_SECRET_METHODS.has(p.client?.token_endpoint_auth_method ?? 'client_secret_basic') && !(p.clientSecret ?? providerEnv(env, p.id, 'SECRET'))) {
    missing.push(`a client secret (${stem}_SECRET, or \`clientSecret\`)`);
  }
  if (missing.length === 0) return undefined;
  return `Provider "${p.id}" lacks ${missing.join(' and ')}: the provider's sign-in would end in error=Configuration. Add ${missing.length === 1 ? 'it' : 'them'} from the app you registered at the provider.`;
}

/** The findings as lines for a terminal. */
export function formatFindings(findings: readonly Finding[]): string {
  const lines = findings.map((f) => `${f.level === 'ok' ? '  ok      ' : '  problem '} ${f.message}`);
  const problems = findings.filter((f) => f.level === 'problem').length;
  lines.push('', problems === 0 ? 'No problem found.' : `${problems} problem${problems === 1 ? '' : 's'} found.`);
  return lines.join('\n');
}
