// What a person checks on a page, measured in Chromium: text contrast from the rendered colours (WCAG AA), input
// borders and focus rings (3:1), no horizontal scroll; in light and dark, at desktop and phone sizes, with a
// screenshot of each (kept out of git) to look at.
import { mkdirSync } from 'node:fs';
import type { Page } from 'playwright-core';

/** The four ways the suite looks at every page. */
export const VIEWS = [
  { name: 'desktop-light', width: 1280, height: 800, colorScheme: 'light' },
  { name: 'desktop-dark', width: 1280, height: 800, colorScheme: 'dark' },
  { name: 'phone-light', width: 390, height: 844, colorScheme: 'light' },
  { name: 'phone-dark', width: 390, height: 844, colorScheme: 'dark' },
] as const;

export type View = (typeof VIEWS)[number];

/** One measured problem: what, where, and the ratio found. */
export interface Finding {
  kind: 'text' | 'border' | 'focus' | 'scroll';
  where: string;
  ratio?: number;
}

/**
 * Measures the page as it is rendered now. Runs in the page: colours come from getComputedStyle, backgrounds are
 * composited up the ancestors (alpha and opacity included), so a ratio is what the eye gets.
 */
export function audit(page: Page): Promise<Finding[]> {
  return page.evaluate(() => {
    type Rgba = [number, number, number, number];
    const parse = (value: string): Rgba => {
      const m = /rgba?\(([^)]+)\)/.exec(value);
      if (!m) return [0, 0, 0, 0];
      const parts = m[1].split(/[\s,/]+/).filter(Boolean).map(Number);
      return [parts[0], parts[1], parts[2], parts[3] ?? 1];
    };
    const over = (top: Rgba, bottom: Rgba): Rgba => {
      const a = top[3] + bottom[3] * (1 - top[3]);
      if (a === 0) return [0, 0, 0, 0];
      const mix = (i: number) => (top[i] * top[3] + bottom[i] * bottom[3] * (1 - top[3])) / a;
      return [mix(0), mix(1), mix(2), a];
    };
    const background = (el: Element | null): Rgba => {
      const layers: Rgba[] = [];
      for (let e = el; e; e = e.parentElement) {
        const c = parse(getComputedStyle(e).backgroundColor);
        if (c[3] > 0) layers.push(c);
        if (c[3] >= 1) break;
      }
      // The canvas under everything: white, or the dark canvas Chromium paints for color-scheme dark.
      const canvas: Rgba = getComputedStyle(document.documentElement).colorScheme.includes('dark') && matchMedia('(prefers-color-scheme: dark)').matches ? [18, 18, 18, 1] : [255, 255, 255, 1];
      return layers.reduceRight<Rgba>((acc, layer) => over(layer, acc), canvas);
    };
    const opacity = (el: Element | null): number => {
      let o = 1;
      for (let e = el; e; e = e.parentElement) o *= Number(getComputedStyle(e).opacity);
      return o;
    };
    const lum = ([r, g, b]: Rgba) => {
      const f = (v: number) => ((v /= 255) <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4);
      return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
    };
    const ratio = (a: Rgba, b: Rgba) => {
      const [x, y] = [lum(a), lum(b)].sort((p, q) => q - p);
      return Math.round(((x + 0.05) / (y + 0.05)) * 100) / 100;
    };
    const visible = (el: Element) => {
      const r = el.getBoundingClientRect();
      const s = getComputedStyle(el);
      return r.width > 0 && r.height > 0 && s.visibility !== 'hidden' && s.display !== 'none' && !el.closest('[hidden],details:not([open]) > :not(summary)');
    };
    const describe = (el: Element) => `${el.tagName.toLowerCase()}${el.id ? `#${el.id}` : ''}${el.className && typeof el.className === 'string' ? `.${el.className.split(' ').join('.')}` : ''} "${(el.textContent ?? '').trim().slice(0, 40)}"`;
    const findings: { kind: 'text' | 'border' | 'focus' | 'scroll'; where: string; ratio?: number }[] = [];

    for (const el of Array.from(document.body.querySelectorAll('*'))) {
      if (!visible(el) || ['SCRIPT', 'STYLE', 'NOSCRIPT', 'svg'].includes(el.tagName) || el.closest('svg')) continue;
      const s = getComputedStyle(el);
      const ownText = Array.from(el.childNodes).some((n) => n.nodeType === Node.TEXT_NODE && n.textContent!.trim());
      const bg = background(el);
      if (ownText || ((el.tagName === 'INPUT' || el.tagName === 'BUTTON') && (el as HTMLInputElement).value)) {
        if ((el as HTMLButtonElement).disabled) continue;
        const fg = parse(s.color);
        const seen = over([fg[0], fg[1], fg[2], fg[3] * opacity(el)], bg);
        const size = parseFloat(s.fontSize);
        const large = size >= 24 || (size >= 18.66 && Number(s.fontWeight) >= 700);
        const r = ratio(seen, bg);
        if (r < (large ? 3 : 4.5)) findings.push({ kind: 'text', where: describe(el), ratio: r });
      }
      if (el instanceof HTMLInputElement && el.placeholder && !el.value) {
        const ph = parse(getComputedStyle(el, '::placeholder').color);
        const r = ratio(over(ph, bg), bg);
        if (r < 4.5) findings.push({ kind: 'text', where: `placeholder of ${describe(el)}`, ratio: r });
      }
      if ((el.tagName === 'INPUT' && !['hidden', 'submit', 'button', 'checkbox', 'radio'].includes((el as HTMLInputElement).type)) || el.tagName === 'TEXTAREA' || el.tagName === 'SELECT') {
        const border = parse(s.borderTopColor);
        const around = background(el.parentElement);
        const r = Math.max(ratio(over(border, around), around), ratio(bg, around));
        if (parseFloat(s.borderTopWidth) === 0 || r < 3) findings.push({ kind: 'border', where: describe(el), ratio: r });
      }
    }
    const root = document.documentElement;
    if (root.scrollWidth > root.clientWidth + 1) findings.push({ kind: 'scroll', where: `scrollWidth ${root.scrollWidth} > ${root.clientWidth}` });
    return findings;
  });
}

/** The focused element's ring: its outline colour against what is behind it (3:1), or a finding. */
export function focusRing(page: Page): Promise<Finding[]> {
  return page.evaluate(() => {
    const el = document.activeElement;
    if (!el || el === document.body) return [{ kind: 'focus' as const, where: 'nothing is focused' }];
    const s = getComputedStyle(el);
    const parse = (v: string) => (/rgba?\(([^)]+)\)/.exec(v)?.[1].split(/[\s,/]+/).filter(Boolean).map(Number) ?? [0, 0, 0]);
    let bg = [255, 255, 255];
    for (let e: Element | null = el.parentElement; e; e = e.parentElement) {
      const c = parse(getComputedStyle(e).backgroundColor);
      if ((c[3] ?? 1) > 0) {
        bg = c;
        break;
      }
    }
    const lum = (c: number[]) => {
      const f = (v: number) => ((v /= 255) <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4);
      return 0.2126 * f(c[0]) + 0.7152 * f(c[1]) + 0.0722 * f(c[2]);
    };
    const [x, y] = [lum(parse(s.outlineColor)), lum(bg)].sort((p, q) => q - p);
    const r = Math.round(((x + 0.05) / (y + 0.05)) * 100) / 100;
    const shown = s.outlineStyle !== 'none' && parseFloat(s.outlineWidth) >= 2;
    return shown && r >= 3 ? [] : [{ kind: 'focus' as const, where: `${el.tagName.toLowerCase()}[name=${el.getAttribute('name')}]`, ratio: r }];
  });
}

/**
 * Looks at the page in each of the four views: measures it and keeps a screenshot as `<dir>/<name>-<view>.png`.
 * Returns the findings per view (an empty list for a page a person can read). The page is left in the last view.
 */
export async function lookAt(page: Page, dir: string, name: string): Promise<Record<string, Finding[]>> {
  mkdirSync(dir, { recursive: true });
  const out: Record<string, Finding[]> = {};
  for (const view of VIEWS) {
    await page.setViewportSize({ width: view.width, height: view.height });
    await page.emulateMedia({ colorScheme: view.colorScheme });
    out[view.name] = await audit(page);
    await page.screenshot({ path: `${dir}/${name}-${view.name}.png`, fullPage: true });
  }
  return out;
}

/** Every view clean: `{}` when nothing was found, else only the views with findings. */
export function problemsOf(found: Record<string, Finding[]>): Record<string, Finding[]> {
  return Object.fromEntries(Object.entries(found).filter(([, f]) => f.length));
}

/**
 * Visible controls smaller than 24 × 24 px (WCAG 2.5.8), measured in the page: links, buttons, disclosures and inputs,
 * described by tag, text and size.
 */
export function smallTargets(page: Page): Promise<string[]> {
  return page.evaluate(() =>
    Array.from(document.querySelectorAll('a[href], button, summary, input:not([type=hidden])'))
      .filter((el) => {
        const r = el.getBoundingClientRect();
        return r.width > 0 && r.height > 0 && !el.closest('[hidden]') && (r.width < 24 || r.height < 24);
      })
      .map((el) => `${el.tagName.toLowerCase()} "${(el.textContent ?? '').trim().slice(0, 30)}" ${Math.round(el.getBoundingClientRect().width)}x${Math.round(el.getBoundingClientRect().height)}`),
  );
}
