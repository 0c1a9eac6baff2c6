// A sink for apps that forward records elsewhere (a SIEM, a queue, a log pipeline): a callback, an async iterator,
// or both. It never slows a sign-in: the callback runs after the write returns (its failures are counted, not
// thrown), and the iterator's buffer is bounded (the oldest records are dropped past `buffer`, and counted).
import type { ActivityRecord, ActivitySink } from './types.js';

export interface ActivityStreamOptions {
  /** The sink's name in logs. Default `stream`. */
  name?: string;
  /** How many records wait for the iterator at most; older ones are dropped past it. Default 1000. */
  buffer?: number;
}

/** The stream sink: pass it in `activity.sinks`, then read it with `for await` or the callback. */
export interface ActivityStream extends ActivitySink, AsyncIterable<ActivityRecord> {
  /** Records dropped because the iterator fell behind, or the callback threw. */
  readonly dropped: number;
  /** Ends the iterator (a `for await` over it finishes); later records are no longer buffered. */
  close(): void;
}

/**
 * A sink that hands every record to `onRecords` and to whoever iterates it. A record written with its outcome's
 * transaction reaches it once that has committed: an outcome rolled back never reaches the stream.
 *
 * @example
 * const stream = activityStream((records) => siem.send(records))
 * const auth = createAuthHandler({ adapter, providers, activity: { sinks: [stream] } })
 */
export function activityStream(onRecords?: (records: readonly ActivityRecord[]) => void | Promise<void>, options: ActivityStreamOptions = {}): ActivityStream {
  const size = options.buffer ?? 1000;
  const buffered: ActivityRecord[] = [];
  const waiting: ((r: IteratorResult<ActivityRecord>) => void)[] = [];
  let dropped = 0;
  let closed = false;
  let iterated = false;
  const push = (record: ActivityRecord) => {
    const next = waiting.shift();
    if (next) return next({ value: record, done: false });
    buffered.push(record);
    if (buffered.length > size) {
      buffered.shift();
      dropped++;
    }
  };
  return {
    name: options.name ?? 'stream',
    write(records) {
      const copy = records.map((r) => ({ ...r }));
      if (onRecords) {
        // After this write returns: a slow or failing receiver never holds up the outcome.
        queueMicrotask(() => {
          Promise.resolve()
            .then(() => onRecords(copy))
            .catch(() => {
              dropped += copy.length;
            });
        });
      }
      if ((!onRecords || iterated) && !closed) for (const r of copy) push(r);
    },
    get dropped() {
      return dropped;
    },
    close() {
      closed = true;
      for (const w of waiting.splice(0)) w({ value: undefined, done: true });
    },
    [Symbol.asyncIterator](): AsyncIterator<ActivityRecord> {
      iterated = true;
      return {
        next: () => {
          const record = buffered.shift();
          if (record) return Promise.resolve({ value: record, done: false });
          if (closed) return Promise.resolve({ value: undefined, done: true });
          return new Promise((resolve) => waiting.push(resolve));
        },
        return: () => {
          closed = true;
          return Promise.resolve({ value: undefined, done: true });
        },
      };
    },
  };
}
