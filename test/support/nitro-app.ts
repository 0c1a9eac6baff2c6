// Builds a Nitro example (examples/nitro-v3, examples/nitro-v2) with Nitro's own build, starts the server it wrote
// on 127.0.0.1, and stops it by its process: the examples are tested as a user deploys them.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { LOOPBACK, freePort } from '../e2e/peers/net.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** A command's output, or an error carrying it when it exits non-zero. */
function run(command: string, args: string[], cwd: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env: { ...process.env, NO_COLOR: '1' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(output) : reject(new Error(`${command} ${args.join(' ')} exited ${code}:\n${output}`))));
  });
}

/** A running build of an example. */
export interface NitroApp {
  /** `http://127.0.0.1:PORT`. */
  origin: string;
  /** What the server printed so far (stdout and stderr). */
  output(): string;
  stop(): Promise<void>;
}

/**
 * Installs the example's own dependencies as its lock pins them when they are missing (`npm run examples:install`
 * does it beforehand in CI), then runs `nitro build` in it, from scratch: an earlier build's output is removed
 * first, so none can stand in for it. Returns the path of the server the build wrote.
 */
export async function buildExample(name: string): Promise<string> {
  const dir = join(ROOT, 'examples', name);
  if (!existsSync(join(dir, 'node_modules', '.package-lock.json'))) {
    await run('npm', ['ci', '--no-audit', '--no-fund', '--prefer-offline'], dir);
  }
  rmSync(join(dir, '.output'), { recursive: true, force: true });
  const output = await run(join(dir, 'node_modules', '.bin', 'nitro'), ['build'], dir);
  const server = join(dir, '.output', 'server', 'index.mjs');
  if (!existsSync(server)) throw new Error(`nitro build wrote no ${server}:\n${output}`);
  return server;
}

/**
 * Starts the built server of an example (`node .output/server/index.mjs`) on a free loopback port, with `env`
 * added to the environment (AUTH_SECRET, AUTH_URL, a provider's settings), and waits until it listens.
 *
 * @example
 * const port = await freePort(); const app = await startExample('nitro-v3', port, { AUTH_SECRET });
 */
export async function startExample(name: string, port: number, env: Record<string, string>): Promise<NitroApp> {
  const dir = join(ROOT, 'examples', name);
  const child: ChildProcess = spawn(process.execPath, [join(dir, '.output', 'server', 'index.mjs')], {
    cwd: dir,
    env: { ...process.env, NODE_ENV: 'production', NITRO_HOST: LOOPBACK, NITRO_PORT: String(port), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${name} did not start:\n${output}`)), 20_000);
    const check = () => {
      if (/Listening on/.test(output)) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout!.on('data', check);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${name} exited ${code} before listening:\n${output}`));
    });
  });
  return {
    origin: `http://${LOOPBACK}:${port}`,
    output: () => output,
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

export { freePort };
