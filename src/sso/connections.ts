// An organization's SSO connections as its admin manages them: the settings read from a request and checked, the
// OIDC client secret sealed before the adapter sees it (and never handed back), every read and write scoped to the
// organization, so another tenant's connection id reaches nothing.
import { randomUUID } from 'node:crypto';
import type { InternalConfig } from '../core/config.js';
import { InvalidRequest, SsoNotFound } from '../core/errors.js';
import { rolesOf } from '../organizations/roles.js';
import { decryptJwe, encryptJwe } from '../session/jwe.js';
import { deriveSessionKey } from '../session/keys.js';
import { checkIdpUrl } from './idp-url.js';
import { withIdpMetadata } from './saml-idp-metadata.js';
import { makeSpSigningKey } from './sp-signing-key.js';
import { ssoStore } from './store.js';
import type { SsoConnection } from './types.js';

const SALT = 'authchart.sso-client-secret';
const SEALED = 'sealed.';
const enc = new TextEncoder();
const dec = new TextDecoder();

/** Seals an OIDC client secret for the adapter, bound to its connection (a sealed value moved to another opens nowhere). */
export function sealClientSecret(secrets: readonly string[], connectionId: string, secret: string): string {
  const { key, kid } = deriveSessionKey(secrets[0]!, SALT);
  return SEALED + encryptJwe(enc.encode(secret), key, { kid, cid: connectionId });
}

/** Opens a stored client secret; throws when no configured secret sealed it, or it was sealed for another connection. */
export function openClientSecret(secrets: readonly string[], connectionId: string, stored: string): string {
  if (!stored.startsWith(SEALED)) return stored;
  const keys = secrets.map((s) => deriveSessionKey(s, SALT));
  const { plaintext, header } = decryptJwe(stored.slice(SEALED.length), (h) => keys.find((k) => k.kid === h.kid)?.key);
  if (header.cid !== connectionId) throw new Error('This client secret was sealed for another connection.');
  return dec.decode(plaintext);
}

/** A connection as the API shows it: everything but the client secret (only whether one is set). */
export function publicConnection(c: SsoConnection): Record<string, unknown> {
  const { clientSecret: _secret, spSigningKey: _key, ...rest } = c as SsoConnection & { clientSecret?: string; spSigningKey?: string };
  return c.kind === 'oidc' ? { ...rest, clientSecretSet: Boolean(_secret) } : rest;
}

const bad = (message: string, field: string) => new InvalidRequest(message, { field });

function text(body: Record<string, unknown>, name: string, max = 500): string | undefined {
  const v = body[name];
  if (v === undefined || v === null || v === '') return undefined;
  if (typeof v !== 'string' || v.length > max || /[\u0000-\u001f\u007f]/.test(v)) throw bad(`\`${name}\` is a line of at most ${max} characters.`, name);
  return v.trim();
}

/** An issuer or IdP URL of the body (see idp-url.ts). */
function url(config: InternalConfig, body: Record<string, unknown>, name: string): string | undefined {
  const v = text(body, name, 2000);
  return v === undefined ? undefined : checkIdpUrl(config, v, name);
}

function flag(body: Record<string, unknown>, name: string): boolean | undefined {
  const v = body[name];
  if (v === undefined || v === '') return undefined;
  if (v === true || v === 'true' || v === 'on') return true;
  if (v === false || v === 'false' || v === 'off') return false;
  throw bad(`\`${name}\` is true or false.`, name);
}

/** The default role: one the configuration has, and not owner (an IdP never hands out ownership). */
function role(config: InternalConfig, body: Record<string, unknown>): string | undefined {
  const r = text(body, 'defaultRole', 64);
  if (r === undefined) return undefined;
  if (r === 'owner' || !rolesOf(config).has(r)) throw bad(`\`defaultRole\` must be a role other than owner (not "${r}").`, 'defaultRole');
  return r;
}

function scopes(body: Record<string, unknown>): string[] | undefined {
  const v = body.scopes;
  if (v === undefined || v === '') return undefined;
  const list = (Array.isArray(v) ? v : typeof v === 'string' ? v.split(/[\s,]+/) : null)?.filter((s) => s !== '');
  if (!list || !list.every((s) => typeof s === 'string' && /^[\x21\x23-\x5b\x5d-\x7e]{1,100}$/.test(s)) || list.length > 30) throw bad('`scopes` are scope names separated by spaces.', 'scopes');
  return [...new Set(['openid', ...(list as string[])])];
}

/** Reads the kind's settings from a request body; `current` for an update (absent fields keep their value). */
export function settingsFrom(config: InternalConfig, body: Record<string, unknown>, current?: SsoConnection): Partial<SsoConnection> {
  const kind = current?.kind ?? text(body, 'kind', 10) ?? 'oidc';
  const common = { name: text(body, 'name', 200), defaultRole: role(config, body), enabled: flag(body, 'enabled') };
  if (kind === 'oidc') {
    return { ...common, kind, issuer: url(config, body, 'issuer'), clientId: text(body, 'clientId'), clientSecret: text(body, 'clientSecret', 2000), scopes: scopes(body) } as Partial<SsoConnection>;
  }
  if (kind === 'saml') {
    const certs = body.idpCertificates;
    const idpCertificates = certs === undefined || certs === '' ? undefined : (Array.isArray(certs) ? certs : [certs]).map(String).filter((c) => c.trim() !== '');
    return {
      ...common,
      kind,
      idpEntityId: text(body, 'idpEntityId', 2000),
      idpSsoUrl: url(config, body, 'idpSsoUrl'),
      idpCertificates,
      signAuthnRequests: flag(body, 'signAuthnRequests'),
      wantResponseSigned: flag(body, 'wantResponseSigned'),
      allowIdpInitiated: flag(body, 'allowIdpInitiated'),
      metadataUrl: url(config, body, 'metadataUrl'),
    } as Partial<SsoConnection>;
  }
  throw bad('`kind` is "oidc" or "saml".', 'kind');
}

const defined = <T extends object>(o: T): Partial<T> => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;

/** Creates a connection of the organization from a request body (OIDC: issuer, clientId, clientSecret needed; SAML: the IdP's parts, or its metadata). */
export async function createConnection(config: InternalConfig, organizationId: string, body: Record<string, unknown>): Promise<SsoConnection> {
  const input = body.kind === 'saml' ? await withIdpMetadata(config, body) : body;
  const s = defined(settingsFrom(config, input)) as Partial<SsoConnection> & Record<string, unknown>;
  if (!s.name) throw bad('Give the connection a `name`.', 'name');
  const id = randomUUID();
  if (s.kind === 'oidc') {
    for (const f of ['issuer', 'clientId', 'clientSecret'] as const) if (!s[f]) throw bad(`An OIDC connection needs \`${f}\`.`, f);
    s.clientSecret = sealClientSecret(config.secrets, id, String(s.clientSecret));
    s.scopes ??= ['openid', 'email', 'profile'];
  } else {
    for (const f of ['idpEntityId', 'idpSsoUrl'] as const) if (!s[f]) throw bad(`A SAML connection needs \`${f}\`.`, f);
    s.idpCertificates ??= [];
    s.signAuthnRequests ??= false;
    s.wantResponseSigned ??= false;
    s.allowIdpInitiated ??= false;
    Object.assign(s, makeSpSigningKey(config.secrets, id, `authchart SP ${id}`));
  }
  const connection = { ...s, id, organizationId, defaultRole: s.defaultRole ?? 'member', enabled: s.enabled ?? true, createdAt: new Date() } as SsoConnection;
  return ssoStore(config).createSsoConnection(connection);
}

/** The organization's connection `id`, or SsoNotFound (another organization's reads the same). */
export async function ownConnection(config: InternalConfig, organizationId: string, id: string): Promise<SsoConnection> {
  const connection = id ? await ssoStore(config).getSsoConnection(id) : null;
  if (!connection || connection.organizationId !== organizationId) throw new SsoNotFound('No such connection in this organization.', { actual: id.slice(0, 100) });
  return connection;
}

/** Updates the organization's connection from a request body; the client secret is replaced only when one is given. */
export async function updateConnection(config: InternalConfig, organizationId: string, id: string, body: Record<string, unknown>): Promise<SsoConnection> {
  const current = await ownConnection(config, organizationId, id);
  const input = current.kind === 'saml' ? await withIdpMetadata(config, body) : body;
  const update = defined(settingsFrom(config, input, current)) as Partial<SsoConnection> & { clientSecret?: string };
  if (update.clientSecret) update.clientSecret = sealClientSecret(config.secrets, id, update.clientSecret);
  // A SAML connection made before SP signing keys were: it gets one now.
  if (current.kind === 'saml' && !current.spSigningKey) Object.assign(update, makeSpSigningKey(config.secrets, id, `authchart SP ${id}`));
  const { kind: _kind, ...rest } = update as Record<string, unknown>;
  const updated = await ssoStore(config).updateSsoConnection(organizationId, id, rest as Partial<SsoConnection>);
  if (!updated) throw new SsoNotFound('No such connection in this organization.', { actual: id });
  return updated;
}

/** Deletes the organization's connection (its domains stop routing to it). */
export async function deleteConnection(config: InternalConfig, organizationId: string, id: string): Promise<void> {
  if (!(await ssoStore(config).deleteSsoConnection(organizationId, id))) throw new SsoNotFound('No such connection in this organization.', { actual: id.slice(0, 100) });
}
