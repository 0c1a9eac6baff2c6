// Nothing random, timed or doing I/O runs at module level in src/: workers refuse it (a lazily loaded chunk that
// did would fail the request that loads it). Checked for real in a child process that makes those calls throw and
// then imports every module, and statically on the source for what the run cannot see.
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SRC = join(ROOT, 'src');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sourceFiles(path) : path.endsWith('.ts') && !path.endsWith('.d.ts') ? [path] : [];
  });
}

// The CLI's executable runs its command at module level: that is what it is for, and no app imports it.
const EXECUTABLES = ['src/cli/bin.ts'];
const files = sourceFiles(SRC).map((f) => relative(ROOT, f)).filter((f) => !EXECUTABLES.includes(f)).sort();

describe('nothing at module level', () => {
  it('every module under src/ loads while random values, timers, the clock, fetch and file reads throw', () => {
    const out = execFileSync(process.execPath, ['--import', 'tsx', 'test/architecture/module-level-probe.ts', ...files], {
      cwd: ROOT,
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(files.length).toBeGreaterThan(100);
    expect(JSON.parse(out)).toEqual([]);
  }, 90_000);

  it('the probe catches a module-level random value (the check can fail)', () => {
    const out = execFileSync(process.execPath, ['--import', 'tsx', 'test/architecture/module-level-probe.ts', 'test/architecture/fixtures/module-level-random.ts'], {
      cwd: ROOT,
      encoding: 'utf8',
      timeout: 60_000,
    });
    const failures = JSON.parse(out) as { file: string; error: string }[];
    expect(failures.map((f) => f.file)).toEqual(['test/architecture/fixtures/module-level-random.ts']);
    expect(failures[0].error).toMatch(/randomBytes called/);
  }, 90_000);

  it('no top-level statement of a source file calls a random, timed or I/O primitive', () => {
    // A top-level line (column 0) that is not a function or class declaration and calls one of these.
    const CALL = /\b(randomBytes|randomUUID|randomInt|getRandomValues|Math\.random|Date\.now|performance\.now|setTimeout|setInterval|setImmediate|fetch|readFileSync|readFile|existsSync|statSync|process\.env|Deno\.env)\s*[(.[]/;
    const wrong: string[] = [];
    for (const file of files) {
      const lines = readFileSync(join(ROOT, file), 'utf8').split('\n');
      lines.forEach((line, i) => {
        if (!/^(export\s+)?(const|let|var)\s/.test(line) && !/^[A-Za-z_$][\w$.]*\s*(\(|=[^=>])/.test(line)) return;
        if (/^(export\s+)?(const|let|var)\s+\w+\s*(:[^=]+)?=\s*(async\s*)?(\([^)]*\)|\w+)\s*(:[^=]+)?=>/.test(line)) return; // an arrow function: runs later
        if (CALL.test(line)) wrong.push(`${file}:${i + 1}: ${line.trim()}`);
      });
    }
    expect(wrong).toEqual([]);
  });

  it('the environment is read in one place, src/core/env.ts', () => {
    const wrong = files.filter((f) => f !== 'src/core/env.ts').flatMap((file) =>
      readFileSync(join(ROOT, file), 'utf8')
        .split('\n')
        .map((line, i) => [line, i] as const)
        .filter(([line]) => !/^\s*(\*|\/\/)/.test(line) && /\b(process\.env|Deno\.env|process\s*\??\.\s*env)\b/.test(line))
        .map(([line, i]) => `${file}:${i + 1}: ${line.trim()}`),
    );
    expect(wrong).toEqual([]);
  });
});
