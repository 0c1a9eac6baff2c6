// The adapter boundary: the Adapter contract, the wrapper every call goes through, and the start-up check.

export { adapterMethods, type AccountKey, type Adapter, type AdapterMethod, type StoredUser } from './types.js';
export type {
  Account,
  AdapterAccount,
  AdapterAuthenticator,
  AdapterSession,
  AdapterUser,
  User,
  VerificationToken,
} from './types.js';
export {
  assertAdapter,
  requiredAdapterMethods,
  wrapAdapter,
  type AdapterLogger,
  type AdapterNeeds,
  type WrappedAdapter,
} from './wrap.js';
export { createUserWithAccount } from './create-user.js';
