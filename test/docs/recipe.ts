// A getting-started page as a recipe: the marked blocks, in the page's order. A ```sh block after `<!-- setup -->`
// is commands run in the project's folder; a block after `<!-- file: path -->` is that file of the project; the ```sh
// block after `<!-- start -->` is the command that serves the app (the last step). Unmarked blocks are prose.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';

export type Step = { kind: 'setup'; commands: string; line: number } | { kind: 'file'; path: string; code: string; line: number } | { kind: 'start'; command: string; line: number };

/** The page's marked steps; throws when the page is no recipe (no setup, no file or no start, or start not last). */
export function recipeOf(page: string, markdown: string): Step[] {
  const steps: Step[] = [];
  const marked = /^<!-- (setup|start|file: (\S+)) -->\n```[^\n]*\n([\s\S]*?)^```/gm;
  for (let m = marked.exec(markdown); m; m = marked.exec(markdown)) {
    const line = markdown.slice(0, m.index).split('\n').length + 2;
    if (m[2]) steps.push({ kind: 'file', path: m[2], code: m[3], line });
    else if (m[1] === 'setup') steps.push({ kind: 'setup', commands: m[3], line });
    else steps.push({ kind: 'start', command: m[3].trim(), line });
  }
  const starts = steps.filter((s) => s.kind === 'start');
  if (!steps.some((s) => s.kind === 'setup') || !steps.some((s) => s.kind === 'file') || starts.length !== 1 || steps.at(-1)!.kind !== 'start') {
    throw new Error(`${page} is no recipe: it needs <!-- setup --> and <!-- file: ... --> blocks and one <!-- start --> block, last.`);
  }
  return steps;
}

/**
 * The install commands with the package taken from the local tarball instead of the registry: `authchart` as a
 * package name (not `authchart/...`, not `npx authchart`) in an `npm install`/`bun add` line. Everything else the
 * page names comes from the registry.
 */
export function fromTarball(commands: string, tarball: string): string {
  return commands
    .split('\n')
    .map((line) => (/^\s*(npm (install|i|add)|bun add)\b/.test(line) ? line.replace(/(?<=\s)authchart(?=\s|$)/g, tarball) : line))
    .join('\n');
}

/** Runs the setup steps and writes the files into `dir`; answers the start command. Throws with the step's output. */
export async function prepare(page: string, steps: Step[], dir: string, tarball: string, env: NodeJS.ProcessEnv): Promise<string> {
  let start = '';
  for (const step of steps) {
    if (step.kind === 'file') {
      mkdirSync(dirname(join(dir, step.path)), { recursive: true });
      writeFileSync(join(dir, step.path), step.code);
    } else if (step.kind === 'setup') {
      // Asynchronous: the pages run concurrently in one worker.
      await promisify(execFile)('bash', ['-eo', 'pipefail', '-c', fromTarball(step.commands, tarball)], { cwd: dir, env, timeout: 300_000, maxBuffer: 64 * 1024 * 1024 }).catch((error: { code?: number; stdout?: string; stderr?: string }) => {
        throw new Error(`${page}:${step.line}: the setup step failed (exit ${error.code}):\n${step.commands}\n${error.stdout ?? ''}\n${error.stderr ?? ''}`);
      });
    } else start = step.command;
  }
  return start;
}

/** The app, started by the page's command in its own process group; resolves once `probe` answers. */
export async function serve(page: string, command: string, dir: string, env: NodeJS.ProcessEnv, probe: () => Promise<boolean>): Promise<{ stop(): void; output(): string }> {
  const child: ChildProcess = spawn('bash', ['-c', `exec ${command}`], { cwd: dir, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (c: Buffer) => (output += c));
  child.stderr!.on('data', (c: Buffer) => (output += c));
  let exited = false;
  child.once('exit', () => (exited = true));
  const stop = () => {
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      // already gone
    }
  };
  const deadline = Date.now() + 120_000;
  while (!(await probe().catch(() => false))) {
    if (exited || Date.now() > deadline) {
      stop();
      throw new Error(`${page}: \`${command}\` ${exited ? 'exited' : 'did not answer in 120 s'}:\n${output}`);
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  return { stop, output: () => output };
}
