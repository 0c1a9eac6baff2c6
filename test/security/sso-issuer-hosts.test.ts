// A tenant's admin chooses the issuer the server fetches (discovery, keys, tokens): in production, only a public https
// host. A loopback, private or link-local address (the server's own network: metadata services, admin ports) is
// refused when the connection is saved, as is plain http; development keeps http on loopback for a local IdP.
import { describe, expect, it } from 'vitest';
import type { InternalConfig } from '../../src/core/config.js';
import { InvalidRequest } from '../../src/core/errors.js';
import { settingsFrom } from '../../src/sso/connections.js';

const production = { production: true } as InternalConfig;
const development = { production: false } as InternalConfig;
const issuer = (config: InternalConfig, url: string) => () => settingsFrom(config, { kind: 'oidc', issuer: url });

describe('the issuer of an OIDC connection', () => {
  it.each([
    'http://idp.example',
    'http://127.0.0.1:8080',
    'https://127.0.0.1',
    'https://localhost',
    'https://10.1.2.3',
    'https://172.20.0.1',
    'https://192.168.1.1',
    'https://169.254.169.254/latest',
    'https://100.64.0.1',
    'https://[::1]',
    'https://metadata.internal',
    'https://printer.local',
    'https://user:pass@idp.example',
  ])('refuses %s in production', (url) => {
    expect(issuer(production, url)).toThrow(InvalidRequest);
  });

  it('accepts a public https issuer in production, and a loopback http one in development only', () => {
    expect(issuer(production, 'https://acme.okta.com/oauth2/default')()).toMatchObject({ issuer: 'https://acme.okta.com/oauth2/default' });
    expect(issuer(production, 'https://172.32.0.1')()).toMatchObject({ issuer: 'https://172.32.0.1' });
    expect(issuer(development, 'http://127.0.0.1:8080')()).toMatchObject({ issuer: 'http://127.0.0.1:8080' });
    expect(issuer(development, 'http://idp.example')).toThrow(InvalidRequest);
  });
});
