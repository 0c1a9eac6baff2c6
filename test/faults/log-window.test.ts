// An outage under load must not flood the logs: outage errors are logged once per window, the rest counted and
// summarised in one warning; other errors, store errors that are no outage included, are never held back.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { AdapterError, ServiceUnavailable, SessionTokenError } from '../../src/core/errors.js';
import { createLogger, STORE_ERROR_WINDOW_MS } from '../../src/core/logger.js';

describe('store error log window', () => {
  afterEach(() => vi.useRealTimers());

  it('logs one store error per window and then how many were held back', () => {
    vi.useFakeTimers({ now: new Date('2026-11-26T00:00:00Z') });
    const errors: Error[] = [];
    const warnings: [string, string | undefined][] = [];
    const logger = createLogger({ error: (e) => void errors.push(e), warn: (c, m) => void warnings.push([c, m]) }, false);
    for (let i = 0; i < 684; i++) logger.error(new ServiceUnavailable('down'));
    logger.error(new SessionTokenError('not a store error'));
    logger.error(new AdapterError(new Error('duplicate key value violates unique constraint')));
    logger.error(new AdapterError(new Error('column "x" does not exist')));
    expect(errors.map((e) => e.name)).toEqual(['ServiceUnavailable', 'SessionTokenError', 'AdapterError', 'AdapterError']);
    vi.advanceTimersByTime(STORE_ERROR_WINDOW_MS);
    logger.error(new ServiceUnavailable('still down'));
    expect(errors).toHaveLength(5);
    expect(warnings).toEqual([['store-errors', '683 more store errors in 10 s were not logged one by one.']]);
  });
});
