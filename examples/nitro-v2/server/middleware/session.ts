// Reads the session once per request and puts it on event.context, so any route can use it.
import { getSession } from 'authchart';
import { defineEventHandler, getRequestURL } from 'h3';
import { authConfig } from '../utils/auth.js';

export default defineEventHandler(async (event) => {
  // authchart's own routes read what they need themselves.
  if (getRequestURL(event).pathname.startsWith('/auth/')) return;
  event.context.session = await getSession(event, authConfig);
});
