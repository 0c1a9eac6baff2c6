// The demo's own pages as a newcomer reads them: the quick sign-in form's boxes are labelled, the nav offers sign-in
// or sign-out (never both), the notes' links end where their URL ends, and no path of this machine is shown.
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { DemoServices } from '../../examples/demo/config.js';
import { openDemoDatabase } from '../../examples/demo/database.js';
import { mailboxPage } from '../../examples/demo/mailbox.js';
import { homePage, layout, linkify, protectedPage } from '../../examples/demo/pages.js';
import type { Session } from '../../src/index.js';

const services = (notes: string[]): DemoServices => ({ routes: [], notes, database: undefined as never, lastSignIn: new Map(), close: async () => {} });
const navLinks = (page: string) => [.../<nav>(.*?)<\/nav>/s.exec(page)![1].matchAll(/<a href="([^"]+)">([^<]+)<\/a>/g)].map((m) => m[2]);

describe('the demo pages', () => {
  it('labels the quick sign-in form\'s two boxes with text a person sees', async () => {
    const page = await homePage(null, services([]));
    const form = /<form id="quick-signin">(.*?)<\/form>/s.exec(page)![1];
    const inputs = [...form.matchAll(/<input [^>]*name="(\w+)"/g)].map((m) => m[1]);
    expect(inputs).toEqual(['email', 'password']);
    // Each input sits inside a <label> whose own text names it.
    expect(form).toMatch(/<label>Email <input [^>]*name="email"[^>]*><\/label>/);
    expect(form).toMatch(/<label>Password <input [^>]*name="password"[^>]*><\/label>/);
  });

  it('shows "Sign in" or "Sign out" in the nav, never both', async () => {
    const session: Session = { user: { email: 'ada@example.com', name: 'Ada' }, expires: new Date(Date.now() + 3_600_000).toISOString() };
    for (const page of [await homePage(null, services([])), protectedPage(null), mailboxPage([], new Date(), false), layout('x', '')]) {
      expect(navLinks(page)).toContain('Sign in');
      expect(navLinks(page)).not.toContain('Sign out');
    }
    for (const page of [protectedPage(session), mailboxPage([], new Date(), true), layout('x', '', { signedIn: true })]) {
      expect(navLinks(page)).toContain('Sign out');
      expect(navLinks(page)).not.toContain('Sign in');
    }
  });

  it('links a URL in a note without the sentence\'s colon, full stop or comma', () => {
    const html = linkify('Demo IdP (OpenID Provider) at http://127.0.0.1:4001: sign in as "alice". See http://localhost:3000, or http://localhost:3000/x. Also /dev/mailbox; done');
    expect([...html.matchAll(/href="([^"]+)"/g)].map((m) => m[1])).toEqual(['http://127.0.0.1:4001', 'http://localhost:3000', 'http://localhost:3000/x', '/dev/mailbox']);
  });

  it('the home page names no folder of this machine, with the database kept on disk', { timeout: 60_000 }, async () => {
    const root = fileURLToPath(new URL('../..', import.meta.url));
    const db = await openDemoDatabase({});
    try {
      expect(db.where).toMatch(/^embedded PGlite/);
      const page = await homePage(null, services([`Users, accounts and sessions: ${db.where}.`]));
      expect(page).toContain('.data/demo-pglite');
      expect(page).not.toContain(root);
      expect(page).not.toMatch(/(?:^|[\s>])\/(?:home|root|tmp|work|Users)\//);
    } finally {
      await db.close();
    }
  });
});
