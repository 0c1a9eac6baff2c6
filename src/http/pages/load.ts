// The built-in pages load with the first page a browser asks for (sign-in, sign-out, error, check-your-email, a
// refusal): a server that only answers session checks and API calls never loads them.
import { lazy } from '../../core/lazy.js';

/** The pages module, loaded once (and again after a failed load). */
export const loadPages = lazy(() => import('./index.js'));
