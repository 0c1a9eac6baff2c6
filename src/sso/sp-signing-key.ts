// The service provider's signing key of one SAML connection, for the AuthnRequests its IdP wants signed: an RSA key
// made when the connection is created, its private half sealed under the auth secret and bound to the connection
// (as an OIDC client secret is), its public half in a self-signed certificate the SP metadata carries. A self-signed
// certificate is what SAML metadata expects: the IdP trusts the key it imported, not a chain.
import { createPrivateKey, createPublicKey, createSign, generateKeyPairSync, randomBytes } from 'node:crypto';
import { decryptJwe, encryptJwe } from '../session/jwe.js';
import { deriveSessionKey } from '../session/keys.js';

const SALT = 'authchart.sso-sp-signing-key';
const SEALED = 'sealed.';
const enc = new TextEncoder();
const dec = new TextDecoder();

/** A connection's SP signing key as stored: the private key sealed, the certificate in PEM. */
export interface SpSigningKey {
  spSigningKey: string;
  spSigningCert: string;
}

// DER, as much of it as a certificate needs.
function der(tag: number, body: Buffer): Buffer {
  const n = body.length;
  const len = n < 0x80 ? Buffer.from([n]) : n < 0x100 ? Buffer.from([0x81, n]) : Buffer.from([0x82, n >> 8, n & 0xff]);
  return Buffer.concat([Buffer.from([tag]), len, body]);
}
const seq = (...parts: Buffer[]) => der(0x30, Buffer.concat(parts));
function oid(dotted: string): Buffer {
  const [a, b, ...rest] = dotted.split('.').map(Number);
  const bytes = [a! * 40 + b!];
  for (const n of rest) {
    const chunk = [n & 0x7f];
    for (let v = n >> 7; v > 0; v >>= 7) chunk.unshift((v & 0x7f) | 0x80);
    bytes.push(...chunk);
  }
  return der(0x06, Buffer.from(bytes));
}
function time(d: Date): Buffer {
  const iso = d.toISOString().replace(/[-:T]/g, '').slice(0, 14) + 'Z';
  return d.getUTCFullYear() < 2050 ? der(0x17, Buffer.from(iso.slice(2))) : der(0x18, Buffer.from(iso));
}
const SHA256_RSA = seq(oid('1.2.840.113549.1.1.11'), Buffer.from([0x05, 0x00]));
const name = (cn: string) => seq(der(0x31, seq(oid('2.5.4.3'), der(0x0c, Buffer.from(cn, 'utf8')))));

/** A self-signed X.509 certificate (PEM) for the key, named `cn`, valid from now for `years`. */
export function selfSignedCertificate(privateKeyPem: string, cn: string, years = 10): string {
  const key = createPrivateKey(privateKeyPem);
  const spki = createPublicKey(key).export({ type: 'spki', format: 'der' });
  const serial = randomBytes(16);
  serial[0] = serial[0]! & 0x7f;
  const now = new Date();
  const until = new Date(now);
  until.setUTCFullYear(now.getUTCFullYear() + years);
  const tbs = seq(der(0xa0, der(0x02, Buffer.from([2]))), der(0x02, serial), SHA256_RSA, name(cn), seq(time(now), time(until)), name(cn), spki);
  const signature = createSign('sha256').update(tbs).sign(key);
  const cert = seq(tbs, SHA256_RSA, der(0x03, Buffer.concat([Buffer.from([0]), signature])));
  return `-----BEGIN CERTIFICATE-----\n${cert.toString('base64').replace(/.{1,64}/g, '$&\n')}-----END CERTIFICATE-----\n`;
}

/**
 * A new signing key for the connection: the private key sealed under the first auth secret, bound to the connection.
 *
 * @example
 * const { spSigningKey, spSigningCert } = makeSpSigningKey(config.secrets, id, entityId)
 */
export function makeSpSigningKey(secrets: readonly string[], connectionId: string, cn: string): SpSigningKey {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const pem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  const { key, kid } = deriveSessionKey(secrets[0]!, SALT);
  return { spSigningKey: SEALED + encryptJwe(enc.encode(pem), key, { kid, cid: connectionId }), spSigningCert: selfSignedCertificate(pem, cn.slice(0, 64)) };
}

/** Opens a connection's sealed signing key (PEM); throws when no configured secret sealed it, or it is another connection's. */
export function openSpSigningKey(secrets: readonly string[], connectionId: string, sealed: string): string {
  if (!sealed.startsWith(SEALED)) throw new Error('The SP signing key is not sealed.');
  const keys = secrets.map((s) => deriveSessionKey(s, SALT));
  const { plaintext, header } = decryptJwe(sealed.slice(SEALED.length), (h) => keys.find((k) => k.kid === h.kid)?.key);
  if (header.cid !== connectionId) throw new Error('This signing key was sealed for another connection.');
  return dec.decode(plaintext);
}
