// A protected API route: requireSession answers 401 when signed out.
import { requireSession } from 'authchart';
import { defineHandler } from 'nitro/h3';
import { authConfig } from '../../auth.config.js';

export default defineHandler(async (event) => {
  const session = await requireSession(event, authConfig);
  return { user: session.user };
});
