// The documentation's relative links lead somewhere: every link from README.md and docs/*.md to a file of the
// repository names one that exists, and a link to a section of a page names a heading that page has. Files the
// package does not ship (examples/, test/) are linked by their address in the repository package.json names.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const PAGES = ['README.md', ...readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens. */
const anchor = (heading: string) => heading.trim().toLowerCase().replace(/[^\p{L}\p{N}\s-]/gu, '').replace(/\s/g, '-');
const anchors = (markdown: string) => new Set([...markdown.matchAll(/^#+ (.+)$/gm)].map((m) => anchor(m[1])));
/** The links of a page outside its code blocks. */
const links = (markdown: string) => [...markdown.replace(/^```[\s\S]*?^```/gm, '').matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]);

describe('the links of the documentation', () => {
  for (const page of PAGES) {
    it(`${page}: every relative link resolves`, () => {
      const markdown = readFileSync(join(ROOT, page), 'utf8');
      const broken: string[] = [];
      for (const link of links(markdown)) {
        if (/^[a-z]+:/.test(link)) continue;
        const [path, hash] = link.split('#');
        const target = path ? join(ROOT, dirname(page), path) : join(ROOT, page);
        if (!existsSync(target)) broken.push(link);
        else if (hash && target.endsWith('.md') && !anchors(readFileSync(target, 'utf8')).has(hash)) broken.push(link);
      }
      expect(broken).toEqual([]);
    });
  }

  // The repository's address, from package.json, as links into it start.
  const { repository } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { repository?: { url?: string } };
  const REPO = (repository?.url ?? '').replace(/^git\+/, '').replace(/\.git$/, '');
  const UNSHIPPED = /^(examples|test)\//;

  for (const page of PAGES) {
    it(`${page}: examples/ and test/ are linked in the repository, at files that exist`, () => {
      expect(REPO).toMatch(/^https:\/\/github\.com\/[^/]+\/[^/]+$/);
      const wrong: string[] = [];
      for (const link of links(readFileSync(join(ROOT, page), 'utf8'))) {
        const inRepo = new RegExp(`^${REPO.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/(?:tree|blob)/main/(.+)$`).exec(link);
        if (inRepo) {
          if (!existsSync(join(ROOT, inRepo[1]!))) wrong.push(link);
          continue;
        }
        if (/^[a-z]+:/.test(link) || link.startsWith('#')) continue;
        const path = join(dirname(page), link.split('#')[0]!).replace(/\\/g, '/');
        if (UNSHIPPED.test(path)) wrong.push(link);
      }
      expect(wrong, 'a reader of the package cannot open these').toEqual([]);
    });
  }

  it('would catch a broken one', () => {
    expect(anchors('# Getting started\n## In the browser: `authchart/client`\n')).toEqual(new Set(['getting-started', 'in-the-browser-authchartclient']));
    expect(links('[a](docs/nowhere.md)\n```\n[b](in-code.md)\n```\n')).toEqual(['docs/nowhere.md']);
  });
});
