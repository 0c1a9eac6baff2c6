// Counts the session checks the Node middleware's lean path took (src/http/integrations/node-session.ts), so a test
// can say which path each request exercised. For a `vi.mock` factory of that module.
import type * as LeanModule from '../../src/http/integrations/node-session.js';

/** The module with `leanSessionCheck` wrapped: each check it takes adds one to `counter.taken`. */
export function countingLean(mod: typeof LeanModule, counter: { taken: number }): typeof LeanModule {
  return {
    ...mod,
    leanSessionCheck: (config) => {
      const check = mod.leanSessionCheck(config);
      return (
        check &&
        ((req, make) => {
          const answer = check(req, make);
          if (answer) counter.taken++;
          return answer;
        })
      );
    },
  };
}
