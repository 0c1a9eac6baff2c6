// Type-checks the TypeScript blocks of Markdown pages against the package's public entries, in memory: each block is a
// module of its own (`authchart`, `authchart/node`, ... resolve to src/ through tsconfig's paths, as for the examples),
// and each error is reported at its page and line. A block whose info string says `nocheck: <why>` is skipped.
// A block after a `<!-- file: name.ts -->` comment is that file of the page's recipe: the page's files sit in one
// folder, so they import each other as the recipe's project does ('./auth.config.ts'). A page whose blocks import
// Nitro is checked beside the Nitro example of that version, whose node_modules hold it.
import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';

export interface CodeBlock {
  /** The page, relative to the repository. */
  page: string;
  /** The line of the page where the block's code starts (1-based). */
  line: number;
  info: string;
  code: string;
  /** The file of the recipe this block is (`<!-- file: server.ts -->` before it), if any. */
  file?: string;
}

/** Every ```ts / ```typescript block of a page, with where it starts. */
export function codeBlocks(page: string, markdown: string): CodeBlock[] {
  const blocks: CodeBlock[] = [];
  const fence = /^(?:<!-- file: (\S+) -->\n)?```(ts|typescript)\b([^\n]*)\n([\s\S]*?)^```/gm;
  for (let m = fence.exec(markdown); m; m = fence.exec(markdown)) {
    const line = markdown.slice(0, m.index).split('\n').length + (m[1] ? 2 : 1);
    blocks.push({ page, line, info: m[3].trim(), code: m[4], ...(m[1] ? { file: m[1] } : {}) });
  }
  return blocks;
}

/** The reason a block is not checked, or null when it is. A bare `nocheck` gives the reason ''. */
export function nocheckReason(block: CodeBlock): string | null {
  const m = /^nocheck\b:?\s*(.*)$/.exec(block.info);
  return m ? m[1].trim() : null;
}

/** Compiles the blocks together (one program, each block its own module); answers one line per error, '' when clean. */
export function typecheckBlocks(root: string, blocks: CodeBlock[]): string[] {
  const configPath = join(root, 'tsconfig.json');
  const { config } = ts.readConfigFile(configPath, ts.sys.readFile);
  const { options } = ts.parseJsonConfigFileContent(config, ts.sys, root, undefined, configPath);
  const compilerOptions: ts.CompilerOptions = { ...options, noEmit: true, declaration: false, sourceMap: false, incremental: false, allowImportingTsExtensions: true };

  // Virtual files beside the pages, so bare imports ('h3', 'express') resolve from the repository's node_modules.
  const files = new Map<string, CodeBlock>();
  const slug = (page: string) => page.replace(/[^A-Za-z0-9]+/g, '_');
  const nitro = new Map<string, string>();
  for (const b of blocks) {
    if (/from 'nitropack/.test(b.code)) nitro.set(b.page, 'examples/nitro-v2');
    else if (/from 'nitro\//.test(b.code)) nitro.set(b.page, 'examples/nitro-v3');
  }
  blocks.forEach((b, i) => {
    const dir = join(root, nitro.get(b.page) ?? 'docs', '.blocks', slug(b.page));
    files.set(b.file ? join(dir, b.file) : join(dir, `${i}-${b.line}.ts`), b);
  });
  const source = (file: string) => `${files.get(file)!.code}\nexport {};\n`;

  const host = ts.createCompilerHost(compilerOptions);
  const getSourceFile = host.getSourceFile.bind(host);
  const fileExists = host.fileExists.bind(host);
  const readFile = host.readFile.bind(host);
  host.getSourceFile = (file, languageVersion, ...rest) =>
    files.has(file) ? ts.createSourceFile(file, source(file), languageVersion, true) : getSourceFile(file, languageVersion, ...rest);
  host.fileExists = (file) => files.has(file) || fileExists(file);
  // The virtual folders exist for module resolution, which looks for a folder before the files in it.
  const directoryExists = host.directoryExists?.bind(host);
  host.directoryExists = (dir) => [...files.keys()].some((f) => f.startsWith(`${dir}/`)) || (directoryExists?.(dir) ?? true);
  host.readFile = (file) => (files.has(file) ? source(file) : readFile(file));

  const program = ts.createProgram([...files.keys()], compilerOptions, host);
  const errors: string[] = [];
  for (const [file, block] of files) {
    for (const d of ts.getPreEmitDiagnostics(program, program.getSourceFile(file))) {
      const at = d.file && d.start !== undefined ? d.file.getLineAndCharacterOfPosition(d.start).line : 0;
      errors.push(`${block.page}:${block.line + at}: TS${d.code} ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`);
    }
  }
  return errors;
}

/** The pages the check covers: the README and every page in docs/, found anew on each run. */
export function pages(root: string, docs: string[]): { page: string; markdown: string }[] {
  return ['README.md', ...docs.filter((f) => f.endsWith('.md')).sort().map((f) => `docs/${f}`)].map((p) => ({
    page: relative(root, join(root, p)),
    markdown: readFileSync(join(root, p), 'utf8'),
  }));
}
