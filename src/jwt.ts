// authchart/jwt: the session JWT codec and reading a request's token, as Auth.js's `@auth/core/jwt`.
export { encode, decode, type JWTEncodeParams, type JWTDecodeParams } from './session/jwt.js';
export { getToken, type GetTokenParams, type TokenRequest } from './session/get-token.js';
export type { JWT } from './core/types.js';
