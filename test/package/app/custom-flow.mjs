// A custom flow written as an app writes one: its machine built with the app's own `xstate` (the installed package,
// which Node loads as CommonJS), run by the packed authchart, whose runtime carries a bundled copy of xstate. Over the
// fetch handler: the flow pauses on a form (persisted in the flow cookie, restored on the callback), invokes an actor,
// fails on a wrong word and signs in on the right one; then the same provider through testFlow (authchart/flow).
// Prints what happened as JSON.
import { assign, fromPromise, setup } from 'xstate';
import { AuthInit } from 'authchart';
import { AWAITING, baseContext, defineFlow, evidenceFrom, finalOutput, testFlow } from 'authchart/flow';

const ORIGIN = 'http://localhost:3000';
const machine = setup({
  actors: {
    check: fromPromise(async ({ input }) => {
      await new Promise((resolve) => setTimeout(resolve, 1));
      if (input.word !== 'open sesame') throw new Error('not the word');
      return { email: 'ali@example.test' };
    }),
  },
}).createMachine({
  id: 'passphrase',
  initial: 'idle',
  context: ({ input }) => baseContext(input),
  output: finalOutput,
  states: {
    idle: { on: { ASK: 'awaiting' } },
    awaiting: {
      tags: [AWAITING],
      entry: assign({ response: () => ({ kind: 'page', page: 'form', data: { title: 'The word', message: 'Say it.', fields: [{ name: 'word', label: 'Word' }], submit: 'Go' } }) }),
      on: { SAY: 'checking' },
    },
    checking: {
      invoke: {
        src: 'check',
        input: ({ event }) => ({ word: event.word }),
        onDone: { target: 'authenticated', actions: assign({ email: ({ event }) => event.output.email }) },
        onError: { target: 'failed', actions: assign({ failure: ({ event }) => evidenceFrom(event.error) }) },
      },
    },
    authenticated: {
      type: 'final',
      output: ({ context }) => ({ outcome: 'authenticated', user: { email: context.email, name: 'Ali' }, account: { provider: context.providerId, type: 'passphrase', providerAccountId: context.email } }),
    },
    failed: { type: 'final', meta: { error: 'CredentialsSignin' } },
  },
});
const flow = defineFlow({
  machine,
  version: 1,
  csrf: ['signin', 'callback'],
  entry: (route, deps, paused) =>
    route === 'signin' ? { resume: false, event: { type: 'ASK' } } : route === 'callback' && deps.req.method === 'POST' ? { resume: paused, event: { type: 'SAY', word: String(deps.req.body.word ?? '') } } : null,
});
const provider = { id: 'passphrase', name: 'Passphrase', type: 'passphrase', flow };
const { handlers } = AuthInit({ secret: 'authchart-consumer-secret-0123456789-abcdef', trustHost: true, basePath: '/auth', logger: { error() {}, warn() {}, debug() {} }, providers: [provider] });

/** One browser: a cookie jar in front of the fetch handler. */
function browser() {
  const jar = new Map();
  return async (path, body) => {
    const cookie = [...jar].map(([k, v]) => `${k}=${v}`).join('; ');
    const init = body ? { method: 'POST', body: new URLSearchParams(body), headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' } } : { headers: { cookie } };
    const res = await handlers[body ? 'POST' : 'GET'](new Request(`${ORIGIN}${path}`, init));
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const at = pair.indexOf('=');
      if (pair.slice(at + 1) === '') jar.delete(pair.slice(0, at));
      else jar.set(pair.slice(0, at), pair.slice(at + 1));
    }
    return res;
  };
}

async function signIn(word) {
  const call = browser();
  const { csrfToken } = await (await call('/auth/csrf')).json();
  const form = await call('/auth/signin/passphrase', { csrfToken });
  const page = await form.text();
  const done = await call('/auth/callback/passphrase', { csrfToken, word });
  const session = await (await call('/auth/session')).json();
  return { form: form.status, asks: page.includes('Say it.'), done: done.status, location: done.headers.get('location'), user: session?.user ?? null };
}

const driver = testFlow(provider);
const paused = await driver.signIn();
const driven = await driver.callback({ word: 'open sesame' });
console.log(JSON.stringify({ right: await signIn('open sesame'), wrong: await signIn('abracadabra'), driver: { paused: paused.status, done: driven.status } }));
