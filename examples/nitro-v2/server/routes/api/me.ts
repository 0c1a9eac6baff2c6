// A protected API route: requireSession answers 401 when signed out.
import { requireSession } from 'authchart';
import { defineEventHandler } from 'h3';
import { authConfig } from '../../utils/auth.js';

export default defineEventHandler(async (event) => {
  const session = await requireSession(event, authConfig);
  return { user: session.user };
});
