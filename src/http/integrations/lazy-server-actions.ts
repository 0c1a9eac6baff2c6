// AuthInit's signIn, signOut and unstable_update, with their code (./server-actions.ts: the CSRF minting, the form
// posts, the error mapping) loaded on the first call, not with the package: an app that serves its routes and reads
// sessions never parses it. Each action is async, so the load is one more await inside a call that already awaits.
import type { ResolvingAuthInstance } from '../auth.js';
import type { ServerActions } from './server-actions.js';

/**
 * The server actions of one instance, loaded on first use.
 *
 * @example
 * const { signIn } = lazyServerActions(instance); await signIn('credentials', { email, password, redirect: false })
 */
export function lazyServerActions(instance: ResolvingAuthInstance): ServerActions {
  let loaded: Promise<ServerActions> | undefined;
  const actions = () => (loaded ??= import('./server-actions.js').then((m) => m.createServerActions(instance)));
  return {
    signIn: (...args: Parameters<ServerActions['signIn']>) => actions().then((a) => a.signIn(...args)),
    signOut: (...args: Parameters<ServerActions['signOut']>) => actions().then((a) => a.signOut(...args)),
    unstable_update: (...args: unknown[]) => actions().then((a) => (a.unstable_update as (...rest: unknown[]) => Promise<unknown>)(...args)),
  } as ServerActions;
}
