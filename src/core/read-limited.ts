// A body stream read whole as UTF-8 text, up to a byte limit: what a request body from a client and an answer from
// a provider are both held to, so neither can grow memory without end.

/**
 * Reads `body` to its end as text; past `limit` bytes it stops reading, cancels the stream and throws `tooLarge()`.
 * The cancel is not awaited: cancelling one branch of a tee'd (cloned) body settles only once the other branch is
 * cancelled too, which would hang the caller forever.
 *
 * @example
 * const text = await readTextUpTo(request.body, 1_000_000, () => new BodyTooLarge('Request body too large.'))
 */
export async function readTextUpTo(body: ReadableStream<Uint8Array>, limit: number, tooLarge: () => Error): Promise<string> {
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      reader.cancel().catch(() => {});
      throw tooLarge();
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks, size).toString('utf8');
}
