// A protected page: signed out, the browser goes to the sign-in page and comes back here afterwards.
import type { Session } from 'authchart';
import { defineEventHandler, sendRedirect } from 'h3';

const escape = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

export default defineEventHandler((event) => {
  const session = event.context.session as Session | null;
  if (!session?.user) return sendRedirect(event, `/auth/signin?callbackUrl=${encodeURIComponent(event.path)}`);
  return `<!doctype html><title>Dashboard</title><h1>Hello, ${escape(session.user.name ?? session.user.email ?? 'you')}</h1>`;
});
