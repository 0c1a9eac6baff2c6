// Flow ids: one per flow, carried across its requests in the flow cookie and shown in the development tools.
// Apart from record.ts so the runtime can name flows without loading the record code (redaction, formatting).
import { randomBytes } from 'node:crypto';

const FLOW_ID = /^[0-9a-f]{16}$/;

/** A fresh flow id: 64 random bits in hex, unguessable and safe in a URL path. */
export function newFlowId(): string {
  return randomBytes(8).toString('hex');
}

/** True for a string shaped like a flow id (ids come back from cookies and URLs, so they are checked). */
export function isFlowId(value: unknown): value is string {
  return typeof value === 'string' && FLOW_ID.test(value);
}
