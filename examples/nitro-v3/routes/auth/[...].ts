// authchart's routes (sign-in, callbacks, session, CSRF, sign-out, pages) under /auth, the default basePath.
import { createAuthHandler } from 'authchart';
import { authConfig } from '../../auth.config.js';

export default createAuthHandler(authConfig);
