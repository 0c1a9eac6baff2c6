// AuthResponse: a string body read without a web stream, and otherwise the behaviour of a native Response.
import { createServer } from 'node:http';
import { describe, expect, it } from 'vitest';
import { AuthResponse } from '../../src/core/fast-response.js';
import { createAuthApp } from '../../src/http/app.js';
import { resolveConfig } from '../../src/core/config.js';
import { Credentials } from '../../src/providers/credentials.js';
import { sendNodeResponse } from 'srvx/node';

const BODY = '{"user":{"name":"Ada"},"expires":"2030-01-01T00:00:00.000Z"}';
const init = (): ResponseInit => ({ status: 201, headers: [['content-type', 'application/json'], ['set-cookie', 'a=1'], ['set-cookie', 'b=2']] });

describe('AuthResponse', () => {
  it('is a Response with the status, headers and every Set-Cookie line it was given', () => {
    const res = new AuthResponse(BODY, init());
    expect(res).toBeInstanceOf(Response);
    expect(res.status).toBe(201);
    expect(res.ok).toBe(true);
    expect(res.headers.get('content-type')).toBe('application/json');
    expect(res.headers.getSetCookie()).toEqual(['a=1', 'b=2']);
  });

  it('reads a string body once, as text or JSON, and refuses a second read as a native Response does', async () => {
    const res = new AuthResponse(BODY, init());
    expect(res.bodyUsed).toBe(false);
    expect(await res.text()).toBe(BODY);
    expect(res.bodyUsed).toBe(true);
    await expect(res.text()).rejects.toThrow(TypeError);
    await expect(res.json()).rejects.toThrow(TypeError);
    expect(() => res.clone()).toThrow(TypeError);
    expect(res.body).not.toBeNull();

    const viaJson = new AuthResponse(BODY, init());
    expect(await viaJson.json()).toEqual(JSON.parse(BODY));
    expect(viaJson.bodyUsed).toBe(true);
    await expect(viaJson.arrayBuffer()).rejects.toThrow(TypeError);
  });

  it('rejects malformed JSON with a SyntaxError and counts the body as read', async () => {
    const res = new AuthResponse('{not json', init());
    await expect(res.json()).rejects.toThrow(SyntaxError);
    expect(res.bodyUsed).toBe(true);
  });

  it('hands out the string once through takeText, and not at all after a native read', async () => {
    const taken = new AuthResponse(BODY, init());
    expect(taken.takeText()).toBe(BODY);
    expect(taken.takeText()).toBeUndefined();

    const streamed = new AuthResponse(BODY, init());
    expect(await new Response(streamed.body).text()).toBe(BODY);
    expect(streamed.bodyUsed).toBe(true);
    expect(streamed.takeText()).toBeUndefined();
  });

  it('clones before a read, both copies readable', async () => {
    const res = new AuthResponse(BODY, init());
    const copy = res.clone();
    expect(await copy.text()).toBe(BODY);
    expect(await res.text()).toBe(BODY);
  });

  it('reads bodies that are not strings through the native Response', async () => {
    const bytes = new TextEncoder().encode('bytes');
    const res = new AuthResponse(bytes, { status: 200 });
    expect(res.takeText()).toBeUndefined();
    expect(new Uint8Array(await res.arrayBuffer())).toEqual(bytes);
    const empty = new AuthResponse(null, { status: 302, headers: { location: '/x' } });
    expect(empty.body).toBeNull();
    expect(await empty.text()).toBe('');
  });

  it('is what the h3 app hands back for the session route, unchanged', async () => {
    const config = resolveConfig({ secret: 's'.repeat(32), trustHost: true, providers: [Credentials({ authorize: async () => null })] }, { defaultBasePath: '/auth' });
    const res = await createAuthApp(config).fetch(new Request('http://localhost/auth/session'));
    expect(res).toBeInstanceOf(AuthResponse);
    expect(await res.json()).toBeNull();
  });

  it('is written to node:http by srvx without losing a header or the body', async () => {
    const server = createServer((_req, res) => void sendNodeResponse(res, new AuthResponse(BODY, init())));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as { port: number };
      const res = await fetch(`http://127.0.0.1:${port}/`);
      expect(res.status).toBe(201);
      expect(res.headers.getSetCookie()).toEqual(['a=1', 'b=2']);
      expect(res.headers.get('content-length')).toBe(String(Buffer.byteLength(BODY)));
      expect(await res.text()).toBe(BODY);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
