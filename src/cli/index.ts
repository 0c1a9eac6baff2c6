// `npx authchart`: the commands, as a function of the arguments, the environment and the working directory, so
// that tests call it in process and bin.ts only runs it.
import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type { Env } from '../core/env.js';
import { findConfigFile, loadConfig, type LoadedConfig } from './config-file.js';
import { doctor, formatFindings } from './doctor.js';
import { applyMigrations, migrationSql } from './migrate.js';
import { configuredMachines, diagramFiles, diagramsMarkdown } from './visualize.js';
import { verifyWebhook } from './webhooks.js';

export const USAGE = `Usage: authchart <command> [options]

Commands:
  secret                      print a new random AUTH_SECRET
  migrate [--url <url>]       apply authchart's PostgreSQL schema (url: --url, else DATABASE_URL)
  migrate --print             print the schema's SQL, connecting nowhere
  visualize [--out <dir>]     draw the configured flows as Mermaid (stdout, or one Markdown file per flow in dir)
  doctor                      check the configuration and name each problem (exit code 1 when there is one)
  webhooks verify --secret <whsec_…> --id <webhook-id> --timestamp <webhook-timestamp> --signature <webhook-signature> < body
                              check a received webhook's signature (body on stdin); exit code 1 when it does not verify

The configuration (visualize, doctor): --config <file>, else auth.config.{ts,mts,js,mjs} in the working directory.
It exports the AuthConfig as its default export, or as \`authConfig\` or \`config\` (read in that order): the object,
or a function, possibly async, returning it. A TypeScript configuration on Node 20 needs tsx in the app (npm i -D tsx).
`;

/** Where a configuration came from: the file and the export read. */
function source(file: string, { exportName }: Pick<LoadedConfig, 'exportName'>): string {
  return `${file}, ${exportName === 'default' ? 'its default export' : `its export \`${exportName}\``}`;
}

/** What a command wrote and its exit code. */
export interface CliIo {
  out: (text: string) => void;
  err: (text: string) => void;
  env: Env;
  cwd: string;
  /** Standard input, read whole (webhooks verify reads the body from it). */
  stdin?: () => Promise<string>;
}

/**
 * Runs one command; answers the exit code.
 *
 * @example
 * const code = await main(['doctor', '--config', 'auth.config.ts'], { out: console.log, err: console.error, env: process.env, cwd: process.cwd() })
 */
export async function main(argv: readonly string[], io: CliIo): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      allowPositionals: true,
      options: { config: { type: 'string', short: 'c' }, print: { type: 'boolean' }, url: { type: 'string' }, secret: { type: 'string' }, id: { type: 'string' }, timestamp: { type: 'string' }, signature: { type: 'string' }, out: { type: 'string', short: 'o' }, help: { type: 'boolean', short: 'h' } },
    });
  } catch (error) {
    io.err(`${(error as Error).message}\n\n${USAGE}`);
    return 2;
  }
  const { values, positionals } = parsed;
  const [command] = positionals;
  if (values.help || command === undefined || command === 'help') {
    io.out(USAGE);
    return command === undefined && !values.help ? 2 : 0;
  }
  try {
    switch (command) {
      case 'secret':
        // 32 random bytes, base64url: 43 characters, above the 32 the doctor asks for.
        io.out(randomBytes(32).toString('base64url'));
        return 0;
      case 'migrate': {
        if (values.print) {
          io.out(migrationSql());
          return 0;
        }
        const url = values.url ?? io.env.DATABASE_URL;
        if (!url) {
          io.err('migrate needs a database: --url <postgres://...> or DATABASE_URL (or --print for the SQL).');
          return 2;
        }
        const applied = await applyMigrations(url);
        io.out(applied.length === 0 ? 'The schema is up to date.' : `Applied migration${applied.length === 1 ? '' : 's'} ${applied.join(', ')}.`);
        return 0;
      }
      case 'visualize': {
        const file = findConfigFile(values.config, io.cwd);
        const loaded = await loadConfig(file);
        const drawn = await configuredMachines(loaded.config);
        if (values.out === undefined) {
          // stdout is the Markdown alone; where it came from goes to stderr.
          io.err(`authchart visualize: ${source(file, loaded)}`);
          io.out(diagramsMarkdown(drawn));
          return 0;
        }
        const dir = resolve(io.cwd, values.out);
        mkdirSync(dir, { recursive: true });
        const files = diagramFiles(drawn);
        for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
        io.out(`Wrote ${Object.keys(files).length} files to ${dir}, from ${source(file, loaded)}.`);
        return 0;
      }
      case 'doctor': {
        const file = findConfigFile(values.config, io.cwd);
        const { config, exportName } = await loadConfig(file);
        const findings = doctor(config, io.env);
        io.out(`authchart doctor: ${source(file, { exportName })}\n${formatFindings(findings)}`);
        return findings.some((f) => f.level === 'problem') ? 1 : 0;
      }
      case 'webhooks': {
        if (positionals[1] !== 'verify') {
          io.err(`Unknown webhooks command "${positionals[1] ?? ''}": only "webhooks verify".\n\n${USAGE}`);
          return 2;
        }
        const { secret, id, timestamp, signature } = values;
        const absent = Object.entries({ secret, id, timestamp, signature }).filter(([, v]) => v === undefined).map(([k]) => `--${k}`);
        if (absent.length > 0 || !io.stdin) {
          io.err(`webhooks verify needs ${absent.length > 0 ? absent.join(', ') : 'the body on standard input'} (the body on standard input).`);
          return 2;
        }
        const result = verifyWebhook({ secret: secret!, id: id!, timestamp: timestamp!, signature: signature!, body: await io.stdin() });
        if (!result.ok) {
          io.err(`Not verified: ${result.reason}`);
          return 1;
        }
        io.out(`Verified: webhook ${id} signed at ${new Date(Number(timestamp) * 1000).toISOString()}.`);
        return 0;
      }
      default:
        io.err(`Unknown command "${command}".\n\n${USAGE}`);
        return 2;
    }
  } catch (error) {
    io.err(`authchart ${command}: ${error instanceof Error ? error.message : String(error)}`);
    return 1;
  }
}
