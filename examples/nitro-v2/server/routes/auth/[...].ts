// authchart's routes (sign-in, callbacks, session, CSRF, sign-out, pages) under /auth, the default basePath. The
// handler takes h3 v1 events (Nitro 2, Nuxt) as it takes h3 v2 ones.
import { createAuthHandler } from 'authchart';
import { authConfig } from '../../utils/auth.js';

export default createAuthHandler(authConfig);
