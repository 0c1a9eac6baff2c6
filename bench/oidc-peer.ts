// A child process that runs the test suite's real OpenID Provider and plays its user, so the provider's CPU is
// not counted against the library being measured. Prints `{"issuer","control"}` once ready; exits when stdin closes.
//   POST {control}/login  {"url": authorizationUrl, "account": "alice"}  ->  the Navigation back to the app
//   GET {control}/back-channel  ->  how many requests the OP has received at its back-channel endpoints (discovery,
//   JWKS, token, user info): counted by the OP itself, whatever HTTP client the library sends them with
import { createServer } from 'node:http';
import { closeHttpServer, listenLoopback } from '../test/e2e/peers/net.js';
import { startOidcProvider } from '../test/e2e/peers/oidc.js';

const redirectUris = JSON.parse(process.argv[2] ?? '[]') as string[];
const op = await startOidcProvider({ redirectUris });

const BACK_CHANNEL = ['/.well-known/openid-configuration', '/jwks', '/token', '/me', op.userinfoEndpoint().slice(op.issuer.length)];

const control = createServer((req, res) => {
  if (req.method === 'GET' && req.url === '/back-channel') {
    const count = BACK_CHANNEL.reduce((sum, path) => sum + op.requestsTo(path), 0);
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(count));
    return;
  }
  let body = '';
  req.on('data', (d: Buffer) => (body += d));
  req.on('end', () => {
    const { url, account } = JSON.parse(body) as { url: string; account: string };
    op.login(url, account).then(
      (navigation) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(navigation)),
      (error: unknown) => res.writeHead(500).end(String(error)),
    );
  });
});
const port = await listenLoopback(control);

// The parent owns this process: when its end of stdin goes away (done, or crashed), stop.
process.stdin.on('end', () => {
  void Promise.all([op.stop(), closeHttpServer(control)]).then(() => process.exit(0));
});
process.stdin.resume();
process.stdout.write(`${JSON.stringify({ issuer: op.issuer, clientId: op.clientId, clientSecret: op.clientSecret, control: `http://127.0.0.1:${port}` })}\n`);
