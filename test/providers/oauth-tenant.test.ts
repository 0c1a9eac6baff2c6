// The pieces of multi-tenant issuer handling that the end-to-end suite (oauth-tenants) cannot reach one by one.
import { describe, expect, it } from 'vitest';
import type * as oauth from 'oauth4webapi';
import { forAuthorizationResponse, forTenantOf, isTenantOf, isTenantTemplateOf, tenantIssuer } from '../../src/providers/oauth-tenant.js';

const TEMPLATE = 'https://login.microsoftonline.com/{tenantid}/v2.0';
const TID = '72f988bf-86f1-41af-91ab-2d7cd011db47';
const as = { issuer: TEMPLATE } as oauth.AuthorizationServer;
const jwt = (claims: Record<string, unknown>) => `e30.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.sig`;

describe('isTenantTemplateOf', () => {
  it.each([
    ['https://login.microsoftonline.com/common/v2.0', true],
    ['https://login.microsoftonline.com/organizations/v2.0', true],
    ['https://login.microsoftonline.com/common/v1.0', false],
    ['https://login.microsoftonline.com/common/extra/v2.0', false],
    ['https://login.microsoftonline.com.evil.test/common/v2.0', false],
    ['http://login.microsoftonline.com/common/v2.0', false],
  ])('the template against the configured %s: %s', (configured, expected) => {
    expect(isTenantTemplateOf(TEMPLATE, new URL(configured))).toBe(expected);
  });

  it('refuses a template that is not one, or that templates the host', () => {
    expect(isTenantTemplateOf('https://login.microsoftonline.com/common/v2.0', new URL('https://login.microsoftonline.com/common/v2.0'))).toBe(false);
    expect(isTenantTemplateOf('https://{tenantid}/common/v2.0', new URL('https://login.microsoftonline.com/common/v2.0'))).toBe(false);
  });
});

describe('isTenantOf', () => {
  it('accepts one tenant id in place of the alias, and nothing else', () => {
    const consumers = new URL('https://login.microsoftonline.com/consumers/v2.0');
    expect(isTenantOf(`https://login.microsoftonline.com/${TID}/v2.0`, consumers)).toBe(true);
    expect(isTenantOf('https://login.microsoftonline.com/other/v2.0', consumers)).toBe(false);
    expect(isTenantOf(`https://evil.test/${TID}/v2.0`, consumers)).toBe(false);
    expect(isTenantOf(`https://login.microsoftonline.com/${TID}/v1.0`, consumers)).toBe(false);
  });
});

describe('tenantIssuer and forTenantOf', () => {
  it('puts a GUID tenant id into the template, and nothing else', () => {
    expect(tenantIssuer(TEMPLATE, TID)).toBe(`https://login.microsoftonline.com/${TID}/v2.0`);
    for (const tid of ['common', '../x', `${TID}/..`, '', 42, undefined]) expect(tenantIssuer(TEMPLATE, tid)).toBeUndefined();
  });

  it("answers the server of the token's tenant, leaves an ordinary issuer alone, and refuses a token without a tenant", () => {
    expect(forTenantOf(as, jwt({ tid: TID })).issuer).toBe(`https://login.microsoftonline.com/${TID}/v2.0`);
    const plain = { issuer: 'https://op.test' } as oauth.AuthorizationServer;
    expect(forTenantOf(plain, jwt({ tid: TID }))).toBe(plain);
    expect(forTenantOf(as, undefined)).toBe(as);
    expect(() => forTenantOf(as, jwt({}))).toThrow(/tenant id/);
    expect(() => forTenantOf(as, 'not-a-jwt')).toThrow(/tenant id/);
  });
});

describe('forAuthorizationResponse', () => {
  it('expects the iss parameter when it names one tenant of the template, and the template otherwise', () => {
    const tenant = `https://login.microsoftonline.com/${TID}/v2.0`;
    expect(forAuthorizationResponse(as, tenant).issuer).toBe(tenant);
    expect(forAuthorizationResponse(as, 'https://evil.test/' + TID + '/v2.0').issuer).toBe(TEMPLATE);
    expect(forAuthorizationResponse(as, undefined).issuer).toBe(TEMPLATE);
    const plain = { issuer: 'https://op.test' } as oauth.AuthorizationServer;
    expect(forAuthorizationResponse(plain, tenant)).toBe(plain);
  });
});
