// The Content-Security-Policy nonce of the page a request answers with. In core, so a flow (which never imports the
// HTTP layer) can put it on a script of its own HTML answer: the policy the answer goes out with names the same one.
import { randomBytes } from 'node:crypto';

/**
 * The nonce of the page this request answers with: made on first use, the same for every script and style of that
 * page. Only markup written on the server (authchart's pages, a flow's own HTML answer) may carry it; never echo a
 * browser's input next to it.
 *
 * @example
 * // in a flow's actor: a page that polls without a meta refresh
 * const body = `<script nonce="${pageNonce(deps.req)}">setInterval(() => fetch(location.href), 2000)</script>`
 */
export function pageNonce(req: { nonce?: string }): string {
  return (req.nonce ??= randomBytes(16).toString('base64'));
}
