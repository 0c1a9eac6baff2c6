// One authchart instance per configuration object, shared by the helpers that take `config`
// as an argument (`getSession(req, config)`), so the configuration is resolved once.
import { createAuthInstance, type ResolvingAuthInstance, type ConfigInput } from '../auth.js';

const instances = new WeakMap<object, ResolvingAuthInstance>();

export function instanceFor(config: ConfigInput, defaultBasePath = '/auth'): ResolvingAuthInstance {
  let instance = instances.get(config);
  if (!instance) {
    instance = createAuthInstance(config, { defaultBasePath });
    instances.set(config, instance);
  }
  return instance;
}
