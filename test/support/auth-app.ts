// Builds an authchart instance for tests, served in process through h3's `app.fetch`, with a
// recording logger and a browser-like client that carries cookies.
import { createAuth, type ConfigInput } from '../../src/http/auth.js';
import type { AuthConfig, LoggerInstance } from '../../src/core/options.js';
import { createClient, type TestClient } from './client.js';

export const TEST_SECRET = 'test-secret-that-is-long-enough-0123456789';
export const ORIGIN = 'http://localhost:3000';

export interface RecordingLogger extends LoggerInstance {
  errors: Error[];
  warnings: string[];
  debugs: { message: string; metadata?: unknown }[];
  /** Types of the logged errors, in order. */
  errorTypes(): string[];
}

export function recordingLogger(): RecordingLogger {
  const errors: Error[] = [];
  const warnings: string[] = [];
  const debugs: { message: string; metadata?: unknown }[] = [];
  return {
    errors,
    warnings,
    debugs,
    error: (e) => void errors.push(e),
    warn: (code) => void warnings.push(code),
    debug: (message, metadata) => void debugs.push({ message, metadata }),
    errorTypes: () => errors.map((e) => (e as { type?: string }).type ?? e.name),
  };
}

export interface TestAuth {
  handle: (request: Request) => Promise<Response>;
  client: TestClient;
  logger: RecordingLogger;
  /** A fresh client (another browser) on the same instance. */
  newClient(): TestClient;
  /** GET {basePath}/csrf with the client's cookies and return the token. */
  csrfToken(client?: TestClient): Promise<string>;
}

/** An authchart instance with defaults suited to tests: fixed secret, trusted host, recording logger. */
export function testAuth(config: Partial<AuthConfig> & Pick<AuthConfig, 'providers'>, options: { env?: Record<string, string | undefined> } = {}): TestAuth {
  const logger = recordingLogger();
  const full: AuthConfig = { secret: TEST_SECRET, trustHost: true, logger, ...config };
  const instance = createAuth(full as ConfigInput, { defaultBasePath: '/auth' });
  void options;
  const handle = (request: Request) => instance.handle(request);
  const newClient = () => createClient({ fetch: handle, baseUrl: ORIGIN });
  const client = newClient();
  const basePath = full.basePath ?? '/auth';
  return {
    handle,
    client,
    logger,
    newClient,
    async csrfToken(c = client) {
      const res = await c.get(`${basePath}/csrf`);
      return ((await res.json()) as { csrfToken: string }).csrfToken;
    },
  };
}
