// One way to load a module on first use: the import starts once, every caller shares its promise, and a failed
// load is tried again by the next caller instead of failing forever.

/**
 * A loader for `load` (a dynamic import): cached once it succeeds, retried after it fails.
 *
 * @example
 * // (the architecture tests read `import('…')` with a literal path as an edge, so the example names none)
 * const loadReport = lazy(() => import(reportModule));
 * const { render } = await loadReport();
 */
export function lazy<T>(load: () => Promise<T>): () => Promise<T> {
  let loading: Promise<T> | undefined;
  return () =>
    (loading ??= load().catch((err: unknown) => {
      loading = undefined;
      throw err;
    }));
}
