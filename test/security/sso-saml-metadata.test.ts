// Attacks through an IdP's SAML metadata (issue 49), which a tenant's admin gives as XML or as a URL the server
// fetches: a DTD with entities (billion laughs, external entities) never reaches the parser; an oversized document,
// inline or streamed from the URL, is refused; the URL follows the issuer-host rules (in production no loopback,
// private or link-local host, and https only), and so does every redirect it answers with. Each a typed
// InvalidRequest (400), never a connection made, never a 5xx.
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { InternalConfig } from '../../src/core/config.js';
import { InvalidRequest } from '../../src/core/errors.js';
import { MAX_METADATA_BYTES, readIdpMetadata, withIdpMetadata } from '../../src/sso/saml-idp-metadata.js';
import { freePort } from '../e2e/peers/net.js';
import { startSamlWorld, type SamlWorld } from '../e2e/peers/saml-world.js';

let w: SamlWorld;
let server: Server;
let origin: string;
beforeAll(async () => {
  w = await startSamlWorld();
  const port = await freePort();
  origin = `http://127.0.0.1:${port}`;
  server = createServer((req, res) => {
    if (req.url === '/huge') {
      res.writeHead(200, { 'content-type': 'application/xml' });
      const [head, tail] = w.idp.metadataXml().split('</md:EntityDescriptor>');
      res.write(head);
      for (let i = 0; i < 8; i++) res.write(`<!-- ${'x'.repeat(64 * 1024)} -->`);
      res.end(`${tail}</md:EntityDescriptor>`);
    } else if (req.url === '/elsewhere') {
      res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data' }).end();
    } else res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
}, 60_000);
afterAll(async () => {
  await w?.stop();
  await new Promise((resolve) => server?.close(resolve));
});

const post = (body: Record<string, string>) => w.adminPost('/organizations/sso/connections', { kind: 'saml', name: 'Attack', ...body });

async function expectRefused(res: Awaited<ReturnType<typeof post>>, message: RegExp) {
  expect(res.status).toBe(400);
  const body = (await res.json()) as { error: string; message: string };
  expect(body.error).toBe('InvalidRequest');
  expect(body.message).toMatch(message);
  const made = (await (await w.admin.get('/auth/organizations/sso')).json()) as { connections: { name: string }[] };
  expect(made.connections.some((c) => c.name === 'Attack')).toBe(false);
}

const production = { production: true } as InternalConfig;

describe('IdP metadata an admin gives', () => {
  it('refuses a DTD with entities before parsing', async () => {
    const xml = w.idp.metadataXml().replace('<?xml version="1.0"?>', '<?xml version="1.0"?><!DOCTYPE md [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;">]>').replace(w.idp.entityId, '&b;');
    expect(() => readIdpMetadata(xml)).toThrow(/DTD/);
    await expectRefused(await post({ idpMetadata: xml }), /DTD/);
  });

  it('refuses metadata over the size cap', () => {
    const xml = w.idp.metadataXml().replace('</md:EntityDescriptor>', `<!-- ${'x'.repeat(MAX_METADATA_BYTES)} --></md:EntityDescriptor>`);
    expect(() => readIdpMetadata(xml)).toThrow(InvalidRequest);
    expect(() => readIdpMetadata(xml)).toThrow(/larger than/);
  });

  it('stops reading a metadata URL that streams more than the cap', async () => {
    await expectRefused(await post({ metadataUrl: `${origin}/huge` }), /larger than/);
  });

  it('does not follow a redirect to a host the rules refuse', async () => {
    await expectRefused(await post({ metadataUrl: `${origin}/elsewhere` }), /https URL/);
  });

  it.each(['https://127.0.0.1/metadata', 'https://localhost/metadata', 'https://10.0.0.8/metadata', 'https://169.254.169.254/latest', `${'http'}://idp.example/metadata`])(
    'refuses the metadata URL %s in production, before any request',
    async (url) => {
      const refused = withIdpMetadata(production, { kind: 'saml', metadataUrl: url });
      await expect(refused).rejects.toThrow(InvalidRequest);
      await expect(refused).rejects.toThrow(/public host|https URL/);
    },
  );
});
