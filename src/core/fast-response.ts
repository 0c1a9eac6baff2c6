// authchart's responses are srvx's FastResponse (what h3 itself returns on Node): a Response that holds its body
// as given and builds the native one only when something needs it. Node's web Response turns every string body
// into a ReadableStream at construction, which costs more than opening the session token does; a FastResponse
// handed to node:http through srvx writes the string directly and never builds a stream. This subclass also reads
// a string body in process (`text()`, `json()`) straight from the string, with a Response's one-read rule kept.
// The provider transport (providers/provider-http.ts) hands providers' answers to oauth4webapi as one, for the same
// reason.
import { FastResponse } from 'srvx';

type Consumption = 'unread' | 'read' | 'native';

/** srvx's FastResponse as TypeScript should see it: a Response with the lazily built native one behind `_response`. */
declare class LazyResponse extends Response {
  get _response(): Response;
}
const Base = FastResponse as unknown as typeof LazyResponse;
// Off Node, srvx's FastResponse is the native Response: there is no lazy body to read around, so no fast path.
const LAZY = typeof Object.getOwnPropertyDescriptor(FastResponse.prototype, '_response')?.get === 'function';

/**
 * A Response whose string body is read without a stream. Behaves as a native Response in every other respect:
 * `instanceof Response`, headers, status, `clone()`, `body`, and a second read rejects as `Body is unusable`.
 *
 * @example
 * const res = new AuthResponse(JSON.stringify(session), { headers: { 'content-type': 'application/json' } })
 */
export class AuthResponse extends Base {
  #text: string | undefined;
  #state: Consumption = 'unread';

  constructor(body?: BodyInit | null, init?: ResponseInit) {
    super(body, init);
    if (LAZY && typeof body === 'string') this.#text = body;
  }

  /** The native Response, built on first need. After a direct read it is built already consumed, as a native one would be. */
  override get _response(): Response {
    const native = super._response;
    if (this.#state === 'read') {
      // Marks the native body disturbed synchronously; the rejection of a second read then comes from undici itself.
      native.text().catch(() => {});
      this.#state = 'native';
    } else if (this.#state === 'unread') {
      this.#state = 'native';
    }
    return native;
  }

  override get bodyUsed(): boolean {
    if (this.#state === 'read') return true;
    if (this.#state === 'unread') return false;
    return super.bodyUsed;
  }

  /**
   * The body given as a string, now marked read; undefined when it was not a string or is read already (then
   * the native methods apply). For writers that can send a string as it is.
   */
  takeText(): string | undefined {
    if (this.#state !== 'unread' || this.#text === undefined) return undefined;
    this.#state = 'read';
    return this.#text;
  }

  override text(): Promise<string> {
    const text = this.takeText();
    return text === undefined ? super.text() : Promise.resolve(text);
  }

  override json(): Promise<unknown> {
    const text = this.takeText();
    if (text === undefined) return super.json();
    try {
      return Promise.resolve(JSON.parse(text) as unknown);
    } catch (err) {
      return Promise.reject(err);
    }
  }
}
