// The two session strategies behind one interface, so routes and flows never branch on the strategy.
import type { RequestContext as AuthRequest } from '../core/request-context.js';
import { databaseStrategy } from './database-strategy.js';
import { jwtStrategy } from './jwt-strategy.js';

export type { SessionStrategyImpl, SignInResult } from './types.js';
import type { SessionStrategyImpl } from './types.js';

export function strategyFor(req: AuthRequest): SessionStrategyImpl {
  return req.config.session.strategy === 'database' ? databaseStrategy : jwtStrategy;
}
