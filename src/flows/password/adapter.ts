// What the password flows read of the configuration: the adapter with its password methods, and a Password
// provider's settings. A Password provider is refused at start without the methods (core/config.ts), so this only
// narrows the types.
import type { InternalConfig } from '../../core/config.js';
import type { AdapterUser } from '../../core/types.js';
import type { PasswordConfig, PasswordSettings } from '../../providers/password/provider.js';

/** The adapter and its password methods (bound). */
export function passwordAdapter(config: Pick<InternalConfig, 'adapter'>) {
  const adapter = config.adapter;
  if (!adapter?.getPasswordHash || !adapter.setPasswordHash) throw new Error('The adapter has no getPasswordHash/setPasswordHash.');
  return { adapter, getPasswordHash: adapter.getPasswordHash.bind(adapter), setPasswordHash: adapter.setPasswordHash.bind(adapter) };
}

/** A Password provider's settings (`provider.password`). */
export function passwordSettings(provider: unknown): PasswordSettings {
  return (provider as PasswordConfig).password;
}

/**
 * Creates the user and stores their password hash as one step: in one transaction where the adapter has
 * `withTransaction`, so a failed hash write leaves no user without a password (who could then never sign in, and
 * whose address no sign-up could take again).
 */
export async function createPasswordUser(config: Pick<InternalConfig, 'adapter'>, user: AdapterUser, hash: string): Promise<AdapterUser> {
  const write = async (adapter: NonNullable<InternalConfig['adapter']>): Promise<AdapterUser> => {
    const { setPasswordHash } = passwordAdapter({ adapter });
    const created = (await adapter.createUser!(user)) as AdapterUser;
    await setPasswordHash(String(created.id), hash);
    return created;
  };
  const { adapter } = passwordAdapter(config);
  return adapter.withTransaction ? adapter.withTransaction(write) : write(adapter);
}
