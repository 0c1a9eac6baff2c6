// A session store for pages without a framework (what Auth.js's SessionProvider does for React): it holds the
// session, looks again on an interval and when the window regains focus, and follows sign-ins and sign-outs of
// other tabs through a BroadcastChannel.
import { channelName, getSession, updateSession, type ClientSession, type SessionMessage } from './core.js';

export type SessionStatus = 'loading' | 'authenticated' | 'unauthenticated';

/** What the store holds. `error` is the last failed look (the previous session is kept meanwhile). */
export interface SessionState {
  status: SessionStatus;
  data: ClientSession | null;
  error?: unknown;
}

export interface SessionStoreOptions {
  /** A session the server already rendered the page with: no first request, status known at once. */
  session?: ClientSession | null;
  /** Seconds between looks (default 0: none). Skipped while the browser is offline. */
  refetchInterval?: number;
  /** Look again when the window regains focus or the tab becomes visible (default true). */
  refetchOnWindowFocus?: boolean;
}

export interface SessionStore {
  /** The current state. */
  get(): SessionState;
  /** Calls `listener` now and after every change; returns the function that stops it. */
  subscribe(listener: (state: SessionState) => void): () => void;
  /** Asks the server now (concurrent calls share one request). */
  refresh(): Promise<SessionState>;
  /** Updates the session (`trigger: 'update'`); the other tabs follow. */
  update(data: unknown): Promise<ClientSession | null>;
  /** Stops the interval, the focus listeners and the channel. */
  stop(): void;
}

const stateOf = (data: ClientSession | null): SessionState => ({ status: data?.user ? 'authenticated' : 'unauthenticated', data });

/**
 * A store of the session, kept fresh.
 *
 * @example
 * const store = createSessionStore({ refetchInterval: 300 })
 * store.subscribe(({ status, data }) => {
 *   header.textContent = status === 'authenticated' ? `Signed in as ${data.user.email}` : 'Signed out'
 * })
 */
export function createSessionStore(options: SessionStoreOptions = {}): SessionStore {
  let state: SessionState = options.session === undefined ? { status: 'loading', data: null } : stateOf(options.session);
  let shown = JSON.stringify(state);
  let pending: Promise<SessionState> | undefined;
  const listeners = new Set<(state: SessionState) => void>();
  const cleanups: (() => void)[] = [];

  function set(next: SessionState): SessionState {
    state = next;
    const text = JSON.stringify(next);
    if (text !== shown) {
      shown = text;
      for (const listener of [...listeners]) listener(next);
    }
    return next;
  }

  function refresh(): Promise<SessionState> {
    pending ??= getSession()
      .then(stateOf, (error: unknown) => ({ ...state, status: state.status === 'loading' ? 'unauthenticated' : state.status, error }) as SessionState)
      .then(set)
      .finally(() => (pending = undefined));
    return pending;
  }

  const on = (target: EventTarget, type: string, handler: () => void) => {
    target.addEventListener(type, handler);
    cleanups.push(() => target.removeEventListener(type, handler));
  };

  if (typeof BroadcastChannel === 'function') {
    const channel = new BroadcastChannel(channelName());
    channel.onmessage = (event: MessageEvent<SessionMessage>) => {
      if (event.data?.event === 'session') void refresh();
    };
    cleanups.push(() => channel.close());
  }
  if (options.refetchOnWindowFocus ?? true) {
    on(window, 'focus', () => void refresh());
    on(document, 'visibilitychange', () => document.visibilityState === 'visible' && void refresh());
  }
  if (options.refetchInterval) {
    const timer = setInterval(() => navigator.onLine !== false && void refresh(), options.refetchInterval * 1000);
    cleanups.push(() => clearInterval(timer));
  }
  if (state.status === 'loading') void refresh();

  return {
    get: () => state,
    subscribe(listener) {
      listeners.add(listener);
      listener(state);
      return () => void listeners.delete(listener);
    },
    refresh,
    async update(data) {
      const session = await updateSession(data);
      set(stateOf(session));
      return session;
    },
    stop() {
      for (const cleanup of cleanups.splice(0)) cleanup();
      listeners.clear();
    },
  };
}
