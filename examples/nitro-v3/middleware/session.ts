// Reads the session once per request and puts it on event.context, so any route can use it.
import { getSession } from 'authchart';
import { defineHandler } from 'nitro/h3';
import { authConfig } from '../auth.config.js';

export default defineHandler(async (event) => {
  // authchart's own routes read what they need themselves.
  if (event.url.pathname.startsWith('/auth/')) return;
  event.context.session = await getSession(event, authConfig);
});
