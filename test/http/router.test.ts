import { describe, expect, it } from 'vitest';
import { ANY_METHOD, MalformedPath, RouteTable, routingPath } from '../../src/http/router.js';

function table() {
  return new RouteTable<string>()
    .on('GET', '/auth/session', 'session GET')
    .on('POST', '/auth/session', 'session POST')
    .on('GET', '/auth/factors/:action', 'factor action')
    .on('POST', '/auth/factors/code', 'factor code')
    .on('GET', '/auth/flows/:id', 'flow')
    .on('POST', '/auth/flows/:id/start', 'flow start')
    .on('POST', '/auth/unlink/:provider/:providerAccountId', 'unlink')
    .on('POST', '/auth/sso/:kind/:id/acs', 'acs by kind')
    .on('POST', '/auth/sso/saml/:id/acs', 'saml acs')
    .on('HEAD', '/auth/**', 'head')
    .on(ANY_METHOD, '/auth/**', 'unknown')
    .on(ANY_METHOD, '/auth', 'unknown base');
}

describe('RouteTable', () => {
  it('matches a literal path by method, ignoring one trailing slash', () => {
    expect(table().find('GET', '/auth/session')?.handler).toBe('session GET');
    expect(table().find('POST', '/auth/session/')?.handler).toBe('session POST');
    expect(table().find('GET', '/auth/session//')?.handler).toBe('unknown');
  });

  it('serves a method a path has no route for by its every-method route, and HEAD by its own before GET', () => {
    expect(table().find('DELETE', '/auth/session')?.handler).toBe('unknown');
    expect(table().find('HEAD', '/auth/session')?.handler).toBe('head');
    expect(new RouteTable<string>().on('GET', '/a', 'get').find('HEAD', '/a')?.handler).toBe('get');
  });

  it('prefers a literal segment to a parameter at the same place', () => {
    expect(table().find('POST', '/auth/sso/saml/c1/acs')).toEqual({ handler: 'saml acs', params: { id: 'c1' } });
    expect(table().find('POST', '/auth/sso/oidc/c1/acs')).toEqual({ handler: 'acs by kind', params: { kind: 'oidc', id: 'c1' } });
    // The literal route serves only its own method: another method falls to the parameter's route.
    expect(table().find('POST', '/auth/factors/code')?.handler).toBe('factor code');
    expect(table().find('GET', '/auth/factors/code')).toEqual({ handler: 'factor action', params: { action: 'code' } });
  });

  it('gives parameters decoded, but never decodes a separator into one', () => {
    expect(table().find('POST', '/auth/unlink/git%68ub/a%20b')?.params).toEqual({ provider: 'github', providerAccountId: 'a b' });
    expect(table().find('POST', '/auth/unlink/github/a%2Fb%5cc%252Fd')?.params).toEqual({ provider: 'github', providerAccountId: 'a%2Fb%5cc%252Fd' });
    expect(() => table().find('POST', '/auth/unlink/github/%E0%A4%A')).toThrow(MalformedPath);
  });

  it('never matches a parameter to an empty segment, nor a literal route to a longer or shorter path', () => {
    expect(table().find('GET', '/auth/flows/')?.handler).toBe('unknown');
    expect(table().find('GET', '/auth/flows//x')?.handler).toBe('unknown');
    expect(table().find('GET', '/auth/session/x')?.handler).toBe('unknown');
    expect(table().find('GET', '/auth/flows/a/b')?.handler).toBe('unknown');
  });

  it('matches a tail to the empty rest, and nothing outside its prefix, case included', () => {
    expect(new RouteTable<string>().on('GET', '/auth/**', 'tail').find('GET', '/auth')?.handler).toBe('tail');
    expect(table().find('GET', '/auth')?.handler).toBe('unknown base');
    expect(table().find('GET', '/AUTH/session')).toBeUndefined();
    expect(table().find('GET', '/authx/session')).toBeUndefined();
    expect(table().find('GET', '/')).toBeUndefined();
  });

  it('keeps each route its own parameter names', () => {
    const t = new RouteTable<string>().on('GET', '/x/:id', 'get').on('POST', '/x/:other', 'post');
    expect(t.find('GET', '/x/1')).toEqual({ handler: 'get', params: { id: '1' } });
    expect(t.find('POST', '/x/1')).toEqual({ handler: 'post', params: { other: '1' } });
  });
});

describe('routingPath', () => {
  it('writes out needless escapes and keeps separators and reserved characters escaped', () => {
    expect(routingPath('/auth/%73ession')).toBe('/auth/session');
    expect(routingPath('/auth/a%2Fb%3Fc%25d%23e')).toBe('/auth/a%2Fb%3Fc%25d%23e');
    expect(routingPath('/auth/session')).toBe('/auth/session');
  });

  it('refuses a path that is not valid percent-encoding', () => {
    expect(() => routingPath('/auth/%E0%A4%A')).toThrow(MalformedPath);
  });
});
