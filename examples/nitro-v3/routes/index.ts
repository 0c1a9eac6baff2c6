// A public route that shows who is signed in, from the session the middleware read.
import type { Session } from 'authchart';
import { defineHandler } from 'nitro/h3';

export default defineHandler((event) => {
  const session = event.context.session as Session | null;
  return { signedIn: Boolean(session?.user), user: session?.user ?? null };
});
