// authchart/adapters: what an adapter author needs: the Adapter contract, the wrapper every call goes through, the
// start-up check of required methods, and creating a user with its first account as one unit.

export { adapterMethods, type AccountKey, type Adapter, type AdapterMethod, type StoredUser } from '../core/adapter.js';
export type {
  Account,
  AdapterAccount,
  AdapterAuthenticator,
  AdapterSession,
  AdapterUser,
  User,
  VerificationToken,
} from '../core/adapter.js';
export {
  assertAdapter,
  requiredAdapterMethods,
  wrapAdapter,
  type AdapterLogger,
  type AdapterNeeds,
  type WrappedAdapter,
} from '../core/adapter-wrap.js';
export { createUserWithAccount } from './create-user.js';
