// workerd: the app as a module worker; the options arrive as the CONFIG binding. Built on the first request,
// never at module level.
import { createApp, type AppOptions } from './app.js';

let app: ((request: Request) => Promise<Response>) | undefined;

export default {
  fetch(request: Request, env: { CONFIG: string }): Promise<Response> {
    app ??= createApp(JSON.parse(env.CONFIG) as AppOptions);
    return app(request);
  },
};
