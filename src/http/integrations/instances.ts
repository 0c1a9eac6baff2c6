// One authchart instance per configuration object, shared by the helpers that take `config`
// as an argument (`getSession(req, config)`), so the configuration is resolved once.
import { createAuth, type AuthInstance, type ConfigInput } from '../auth.js';

const instances = new WeakMap<object, AuthInstance>();

export function instanceFor(config: ConfigInput, defaultBasePath = '/auth'): AuthInstance {
  let instance = instances.get(config);
  if (!instance) {
    instance = createAuth(config, { defaultBasePath });
    instances.set(config, instance);
  }
  return instance;
}
