// The two session strategies behind one interface, so routes and flows never branch on the strategy.
import type { RequestContext as AuthRequest } from '../core/request-context.js';
import { jwtStrategy } from './jwt-strategy.js';

export type { SessionStrategyImpl, SignInResult, VerifiedSession } from './types.js';
import type { SessionStrategyImpl } from './types.js';

// The database strategy is loaded on first use: an app with JWT sessions (the default) never needs it, so it
// stays out of the code loaded at start. Once loaded it is handed out directly, so only the first calls wait for
// the module; every later session check costs what it did before.
let database: SessionStrategyImpl | undefined;
let loading: Promise<SessionStrategyImpl> | undefined;

function loadDatabase(): Promise<SessionStrategyImpl> {
  loading ??= import('./database-strategy.js').then(
    (m) => (database = m.databaseStrategy),
    (error: unknown) => {
      loading = undefined; // a failed load is retried by the next call, not remembered
      throw error;
    },
  );
  return loading;
}

/** Stands in for the database strategy until its module has loaded. */
const databaseOnFirstUse: SessionStrategyImpl = {
  open: async (req) => (await loadDatabase()).open(req),
  read: async (req) => (await loadDatabase()).read(req),
  issue: async (req, result, tx, activity) => (await loadDatabase()).issue(req, result, tx, activity),
  update: async (req, data) => (await loadDatabase()).update(req, data),
  signOut: async (req) => (await loadDatabase()).signOut(req),
  reverify: async (req, method) => (await loadDatabase()).reverify(req, method),
  setOrganization: async (req, organizationId) => (await loadDatabase()).setOrganization(req, organizationId),
};

export function strategyFor(req: AuthRequest): SessionStrategyImpl {
  if (req.config.session.strategy !== 'database') return jwtStrategy;
  return database ?? databaseOnFirstUse;
}
