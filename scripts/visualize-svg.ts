// Renders the Mermaid block of each diagram page to an SVG next to it, offline: Debian's Chromium via
// playwright-core with the `mermaid` package loaded from node_modules and every network request blocked.
// Not part of CI. Usage: `tsx scripts/visualize-svg.ts [page.md ...]` (default: visualizations/*.md).
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const root = fileURLToPath(new URL('..', import.meta.url));

function mermaidBundle(): string {
  try {
    return createRequire(import.meta.url).resolve('mermaid/dist/mermaid.min.js');
  } catch {
    console.error('visualize:svg needs the mermaid package: npm i -D mermaid@^11');
    process.exit(1);
  }
}

function pages(): string[] {
  const args = process.argv.slice(2);
  if (args.length > 0) return args;
  const dir = join(root, 'visualizations');
  return readdirSync(dir)
    .filter((name) => name.endsWith('.md') && name !== 'README.md')
    .map((name) => join(dir, name));
}

const bundle = mermaidBundle();
if (!existsSync(CHROMIUM)) {
  console.error(`No Chromium at ${CHROMIUM} (set CHROMIUM_PATH).`);
  process.exit(1);
}
const jobs = pages().flatMap((page) => {
  const block = /```mermaid\n([\s\S]*?)```/.exec(readFileSync(page, 'utf8'));
  return block ? [{ page, svg: page.replace(/\.md$/, '.svg'), text: block[1] }] : [];
});
if (jobs.length === 0) {
  console.log('No diagrams to render.');
  process.exit(0);
}

const browser = await chromium.launch({
  executablePath: CHROMIUM,
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'],
});
let failed = false;
try {
  const page = await browser.newPage();
  await page.route('**/*', (route) => route.abort());
  await page.setContent('<!doctype html><html><body></body></html>');
  await page.addScriptTag({ path: bundle });
  for (const job of jobs) {
    // The callback runs in the page, where the mermaid bundle defined a global.
    const result = await page.evaluate(async (text) => {
      const mermaid = (globalThis as unknown as { mermaid: { initialize(o: object): void; render(id: string, t: string): Promise<{ svg: string }> } }).mermaid;
      mermaid.initialize({ startOnLoad: false, securityLevel: 'strict' });
      try {
        return { svg: (await mermaid.render('diagram', text)).svg };
      } catch (error) {
        return { error: String(error instanceof Error ? error.message : error) };
      }
    }, job.text);
    if ('error' in result) {
      failed = true;
      console.error(`${job.page}: ${result.error}`);
    } else {
      writeFileSync(job.svg, result.svg);
      console.log(`wrote ${job.svg}`);
    }
  }
} finally {
  await browser.close();
}
process.exit(failed ? 1 : 0);
