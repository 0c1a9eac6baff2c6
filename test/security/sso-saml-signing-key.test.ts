// The SP signing key of a SAML connection (issue 49) is a secret of the deployment: stored only sealed under the auth
// secret and bound to its connection, so the adapter (a database dump) never holds it in the clear, a sealed key
// copied onto another connection opens nowhere, and the admin API never shows it.
import { describe, expect, it } from 'vitest';
import { publicConnection } from '../../src/sso/connections.js';
import { makeSpSigningKey, openSpSigningKey } from '../../src/sso/sp-signing-key.js';
import type { SsoConnection } from '../../src/sso/types.js';

const secrets = ['sp-signing-key-test-secret-0123456789abcdef'];

describe('the SP signing key', () => {
  const made = makeSpSigningKey(secrets, 'conn-1', 'authchart SP conn-1');

  it('is stored sealed, never as a PEM private key', () => {
    expect(made.spSigningKey).toMatch(/^sealed\./);
    expect(made.spSigningKey).not.toContain('PRIVATE KEY');
    expect(openSpSigningKey(secrets, 'conn-1', made.spSigningKey)).toContain('-----BEGIN PRIVATE KEY-----');
  });

  it('does not open for another connection, nor under another secret', () => {
    expect(() => openSpSigningKey(secrets, 'conn-2', made.spSigningKey)).toThrow();
    expect(() => openSpSigningKey(['another-secret-0123456789abcdef0123456789'], 'conn-1', made.spSigningKey)).toThrow();
  });

  it('is never in what the admin API shows of the connection', () => {
    const connection = { id: 'conn-1', kind: 'saml', ...made } as unknown as SsoConnection;
    const shown = publicConnection(connection);
    expect(shown).not.toHaveProperty('spSigningKey');
    expect(shown.spSigningCert).toBe(made.spSigningCert);
  });
});
