// A public route that shows who is signed in, from the session the middleware read.
import type { Session } from 'authchart';
import { defineEventHandler } from 'h3';

export default defineEventHandler((event) => {
  const session = event.context.session as Session | null;
  return { signedIn: Boolean(session?.user), user: session?.user ?? null };
});
