// `authchart webhooks verify`: a webhook signed as the deliverer signs it verifies; a changed body, another secret, an
// old timestamp or a missing option is refused with the reason and a non-zero exit code. Once through the real
// executable with the body piped on standard input.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { signatureHeaders } from '../../src/activity/webhook-send.js';
import { main } from '../../src/cli/index.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const secret = `whsec_${randomBytes(32).toString('base64')}`;
const endpoint = { id: 'cli', url: new URL('https://hooks.example/in'), secret, kinds: null };
const body = JSON.stringify({ type: 'signIn.succeeded', timestamp: '2026-11-28T20:00:00.000Z', data: { id: 'act_1', kind: 'signIn.succeeded', userId: 'u1' } });

async function run(argv: string[], stdin: string): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await main(argv, { out: (t) => void (out += `${t}\n`), err: (t) => void (err += `${t}\n`), env: {}, cwd: ROOT, stdin: async () => stdin });
  return { code, out, err };
}

const args = (h: Record<string, string>, s = secret) => ['webhooks', 'verify', '--secret', s, '--id', h['webhook-id'], '--timestamp', h['webhook-timestamp'], '--signature', h['webhook-signature']];

describe('authchart webhooks verify', () => {
  it('verifies a webhook signed as the deliverer signs it, and refuses a changed body, another secret, an old timestamp', async () => {
    const h = await signatureHeaders(endpoint, 'act_1', new Date(), body);
    const ok = await run(args(h), body);
    expect(ok).toMatchObject({ code: 0, err: '' });
    expect(ok.out).toMatch(/^Verified: webhook act_1 signed at \d{4}-/);

    const tampered = await run(args(h), body.replace('"u1"', '"u2"'));
    expect(tampered.code).toBe(1);
    expect(tampered.err).toMatch(/Not verified: No matching signature found/);

    const other = await run(args(h, `whsec_${randomBytes(32).toString('base64')}`), body);
    expect(other.code).toBe(1);
    expect(other.err).toMatch(/No matching signature/);

    const old = await signatureHeaders(endpoint, 'act_1', new Date(Date.now() - 6 * 60 * 1000), body);
    const tooOld = await run(args(old), body);
    expect(tooOld.code).toBe(1);
    expect(tooOld.err).toMatch(/too old/);

    const badSecret = await run(args(h, 'not-a-secret!'), body);
    expect(badSecret.code).toBe(1);
    expect(badSecret.err).toMatch(/not a Standard Webhooks secret/);
  });

  it('names what is missing (exit code 2)', async () => {
    const missing = await run(['webhooks', 'verify', '--secret', secret, '--id', 'x'], body);
    expect(missing.code).toBe(2);
    expect(missing.err).toMatch(/--timestamp, --signature/);
    const unknown = await run(['webhooks', 'sign'], body);
    expect(unknown.code).toBe(2);
    expect(unknown.err).toMatch(/only "webhooks verify"/);
  });

  it('the executable reads the body from standard input', async () => {
    const h = await signatureHeaders(endpoint, 'act_9', new Date(), body);
    const result = await new Promise<{ code: number | null; out: string }>((resolve, reject) => {
      const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/bin.ts', ...args({ ...h })], { cwd: ROOT, env: { PATH: process.env.PATH }, stdio: ['pipe', 'pipe', 'pipe'] });
      let out = '';
      child.stdout.on('data', (c: Buffer) => (out += c));
      child.stderr.on('data', (c: Buffer) => (out += c));
      child.on('error', reject);
      child.on('close', (code) => resolve({ code, out }));
      child.stdin.end(body);
    });
    expect(result.out).toMatch(/Verified: webhook act_9/);
    expect(result.code).toBe(0);
  }, 90_000);
});
