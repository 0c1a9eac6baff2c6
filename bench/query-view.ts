// A view of a database driver (a pg Pool or Client, a PGlite) that reports each `query` call, including those of the
// clients its `connect()` hands out (a pool used through checked-out clients, as Kysely uses it); everything else
// passes through. The database bench counts statements with it, the scale bench records them to explain.

/** `driver` seen through a proxy that calls `onQuery(args)` before each query. */
export function queryView<T extends object>(driver: T, onQuery: (args: unknown[]) => void): T {
  const view = <O extends object>(target: O): O =>
    new Proxy(target, {
      get(t, key) {
        const value = Reflect.get(t, key, t) as unknown;
        if (typeof value !== 'function') return value;
        const fn = value as (...a: unknown[]) => unknown;
        if (key === 'query') return (...args: unknown[]) => (onQuery(args), fn.apply(t, args));
        if (key === 'connect') {
          return (...args: unknown[]) => {
            const out = fn.apply(t, args);
            return out instanceof Promise ? out.then((client: unknown) => (client && typeof client === 'object' ? view(client) : client)) : out;
          };
        }
        return fn.bind(t);
      },
    });
  return view(driver);
}
