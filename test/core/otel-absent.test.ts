// @opentelemetry/api is an optional peer: in a process where it does not resolve, sign-in and sessions work and
// tracing is simply off; where it resolves (and no tracer provider is registered) nothing changes either.
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

function run(args: string[]): { resolves: unknown; statuses: number[]; name: string | null; api: string | null } {
  const out = execFileSync(process.execPath, ['--import', 'tsx', ...args, 'test/core/fixtures/signin-without-otel.ts'], { encoding: 'utf8', timeout: 120_000 });
  return JSON.parse(out.trim().split('\n').at(-1)!);
}

describe('without @opentelemetry/api', () => {
  it('signs in and reads the session when the package cannot be resolved, and the API stays unloaded', () => {
    expect(run(['--import', './test/core/fixtures/without-otel.mjs'])).toEqual({ resolves: 'ERR_MODULE_NOT_FOUND', statuses: [302, 302], name: 'Ada', api: null });
  }, 130_000);

  it('does the same where the package resolves but no tracer provider is registered', () => {
    expect(run([])).toEqual({ resolves: true, statuses: [302, 302], name: 'Ada', api: 'loaded' });
  }, 130_000);
});
