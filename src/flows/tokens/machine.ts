// The provider-token refresh of one linked account, as a machine: read the stored tokens; fresh ones (or ones that
// never expire) are answered as they are; otherwise take the account's refresh lock (one refresh at a time across
// instances) and refresh, or wait for the holder and read its result. A refused refresh ends in reauthRequired and
// marks the user's sessions with `error: 'RefreshTokenError'`. It never pauses: one call runs it to the end.
import { assign, fromPromise, setup } from 'xstate';
import type { TokenRefreshState } from '../../core/adapter.js';
import type { AdapterAccount } from '../../core/types.js';
import { doneOutput, errorOf, recordFailure, type FailureEvidence } from '../runtime/context.js';
import { awaitRelease, claimRefresh, loadTokens, recordRefusal, RefreshRefused, refreshGrant, releaseLock, refreshTokenHash, type TokenDeps } from './steps.js';

export interface TokenRefreshInput {
  deps: TokenDeps;
}

export interface TokenRefreshContext {
  deps: TokenDeps;
  /** The account as this caller knows it (its tokens are what it would refresh with). */
  account?: AdapterAccount;
  /** How many lapsed locks this caller has tried to take over. */
  takeovers: number;
  /** This caller sent the refresh (not another caller, not a token that was still fresh). */
  refreshed: boolean;
  failure?: FailureEvidence;
}

/** What a settled refresh answers: the account with a usable access token, and whether this call rotated it. */
export interface TokenRefreshOutput {
  account: AdapterAccount;
  refreshed: boolean;
}

export type TokenRefreshEvent = { type: 'ACCESS_TOKEN' };

type StateEvent = { output: TokenRefreshState };

/** Whether the account's access token is usable without a refresh: it never expires, or not within the skew. */
function usable(deps: TokenDeps, account: AdapterAccount): boolean {
  if (!account.access_token) return false;
  const expiresAt = account.expires_at;
  if (expiresAt === undefined || expiresAt === null) return true;
  return Number(expiresAt) * 1000 > deps.now() + deps.options.skewSeconds * 1000;
}

/**
 * Whether another caller already did the refresh this one would do: the stored tokens are usable, or this caller
 * holds the refresh token the last rotation replaced and that rotation is within the reuse window.
 */
function rotatedElsewhere(context: TokenRefreshContext, state: TokenRefreshState): boolean {
  const stored = state.account;
  const mine = context.account?.refresh_token;
  if (!stored || !stored.access_token) return false;
  if (stored.refresh_token === mine && stored.access_token === context.account?.access_token) return false;
  if (usable(context.deps, stored)) return true;
  return (
    typeof mine === 'string' &&
    state.previousRefreshTokenHash === refreshTokenHash(mine) &&
    state.rotatedAt !== null &&
    context.deps.now() - state.rotatedAt.getTime() <= context.deps.options.reuseWindowMs
  );
}

export const tokenRefreshMachine = /* @__PURE__ */ setup({
  types: {
    context: {} as TokenRefreshContext,
    events: {} as TokenRefreshEvent,
    input: {} as TokenRefreshInput,
    output: {} as TokenRefreshOutput,
  },
  actors: {
    loadTokens: fromPromise(({ input }: { input: { deps: TokenDeps } }) => loadTokens(input.deps)),
    claimRefresh: fromPromise(({ input }: { input: { deps: TokenDeps; account: AdapterAccount } }) => claimRefresh(input.deps, input.account)),
    awaitRelease: fromPromise(({ input }: { input: { deps: TokenDeps; account: AdapterAccount } }) => awaitRelease(input.deps, input.account)),
    refreshGrant: fromPromise(({ input }: { input: { deps: TokenDeps; account: AdapterAccount } }) => refreshGrant(input.deps, input.account)),
    recordRefusal: fromPromise(({ input }: { input: { deps: TokenDeps; account: AdapterAccount } }) => recordRefusal(input.deps, input.account)),
    releaseLock: fromPromise(({ input }: { input: { deps: TokenDeps; account: AdapterAccount } }) => releaseLock(input.deps, input.account)),
  },
  guards: {
    notLinked: ({ event }) => doneOutput<TokenRefreshState>(event).account === null,
    usable: ({ context, event }) => usable(context.deps, doneOutput<TokenRefreshState>(event).account!),
    noRefreshToken: ({ event }) => !doneOutput<TokenRefreshState>(event).account?.refresh_token,
    rotatedElsewhere: ({ context, event }) => rotatedElsewhere(context, doneOutput<TokenRefreshState>(event)),
    claimed: ({ event }) => (event as unknown as { output: { claimed: boolean } }).output.claimed,
    /** The holder this caller waited for was refused since this caller read the tokens. */
    holderRefused: ({ event }) => doneOutput<TokenRefreshState>(event).failedAt !== null,
    /**
     * The provider already refused the refresh token this caller holds (another caller sent it and recorded the
     * refusal after this caller read the tokens): sending it again is a second refused request. A sign-in or a
     * rotation replaces the token and clears the mark, so a mark next to this caller's token is about this token.
     */
    refusedBefore: ({ context, event }) => {
      const state = doneOutput<TokenRefreshState>(event);
      return state.failedAt !== null && state.account?.refresh_token === context.account?.refresh_token;
    },
    takeoverLeft: ({ context }) => context.takeovers < context.deps.options.takeovers,
    refused: ({ event }) => errorOf(event) instanceof RefreshRefused,
  },
  actions: {
    keepAccount: assign({ account: ({ event }) => doneOutput<TokenRefreshState>(event).account ?? undefined }),
    keepRotated: assign({ account: ({ event }) => doneOutput<AdapterAccount>(event), refreshed: true }),
    countTakeover: assign({ takeovers: ({ context }) => context.takeovers + 1 }),
    recordError: assign(recordFailure),
    recordNotLinked: assign({ failure: () => ({ message: 'The user has no account with this provider.', expected: 'a linked account', actual: null }) }),
    recordNoRefreshToken: assign({ failure: () => ({ message: 'The access token has expired and the provider gave no refresh token.', expected: 'a refresh token', actual: null }) }),
    recordHolderRefused: assign({ failure: () => ({ message: 'The provider refused the refresh another caller sent for this account.' }) }),
    recordRefusedBefore: assign({ failure: () => ({ message: 'The provider already refused this refresh token (another caller sent it).' }) }),
    recordGaveUp: assign({ failure: () => ({ message: 'The refresh lock kept lapsing: its holders did not finish.' }) }),
  },
}).createMachine({
  id: 'tokens',
  initial: 'idle',
  context: ({ input }) => ({ deps: input.deps, takeovers: 0, refreshed: false }),
  output: ({ context }) => ({ account: context.account!, refreshed: context.refreshed }),
  states: {
    idle: {
      on: { ACCESS_TOKEN: 'reading' },
    },
    reading: {
      invoke: {
        id: 'loadTokens',
        src: 'loadTokens',
        input: ({ context }) => ({ deps: context.deps }),
        onDone: [
          { guard: 'notLinked', target: 'failed.notLinked', actions: 'recordNotLinked' },
          { guard: 'usable', target: 'fresh', actions: 'keepAccount' },
          { guard: 'noRefreshToken', target: 'recordingRefusal', actions: ['keepAccount', 'recordNoRefreshToken'] },
          { target: 'refreshing', actions: 'keepAccount' },
        ],
        onError: { target: 'failed.unavailable', actions: 'recordError' },
      },
    },
    refreshing: {
      initial: 'claiming',
      states: {
        claiming: {
          invoke: {
            id: 'claimRefresh',
            src: 'claimRefresh',
            input: ({ context }) => ({ deps: context.deps, account: context.account! }),
            onDone: [
              { guard: 'rotatedElsewhere', target: 'releasing', actions: 'keepAccount' },
              // Recording the refusal again releases the lock and keeps the sessions marked; nothing is sent.
              { guard: 'refusedBefore', target: '#tokens.recordingRefusal', actions: 'recordRefusedBefore' },
              { guard: 'claimed', target: 'exchanging' },
              { target: 'waiting' },
            ],
            onError: { target: '#tokens.failed.unavailable', actions: 'recordError' },
          },
        },
        // Took the lock but found the work done (this caller's view was stale): give the lock back, use the result.
        releasing: {
          invoke: {
            id: 'releaseLock',
            src: 'releaseLock',
            input: ({ context }) => ({ deps: context.deps, account: context.account! }),
            onDone: '#tokens.rotated',
            onError: { target: '#tokens.failed.unavailable', actions: 'recordError' },
          },
        },
        waiting: {
          invoke: {
            id: 'awaitRelease',
            src: 'awaitRelease',
            input: ({ context }) => ({ deps: context.deps, account: context.account! }),
            onDone: [
              { guard: 'rotatedElsewhere', target: '#tokens.rotated', actions: 'keepAccount' },
              { guard: 'holderRefused', target: '#tokens.failed.reauthRequired', actions: 'recordHolderRefused' },
              { guard: 'takeoverLeft', target: 'claiming', actions: 'countTakeover' },
              { target: '#tokens.failed.unavailable', actions: 'recordGaveUp' },
            ],
            onError: { target: '#tokens.failed.unavailable', actions: 'recordError' },
          },
        },
        exchanging: {
          invoke: {
            id: 'refreshGrant',
            src: 'refreshGrant',
            input: ({ context }) => ({ deps: context.deps, account: context.account! }),
            onDone: { target: '#tokens.rotated', actions: 'keepRotated' },
            onError: [
              { guard: 'refused', target: '#tokens.recordingRefusal', actions: 'recordError' },
              { target: '#tokens.failed.unavailable', actions: 'recordError' },
            ],
          },
        },
      },
    },
    recordingRefusal: {
      invoke: {
        id: 'recordRefusal',
        src: 'recordRefusal',
        input: ({ context }) => ({ deps: context.deps, account: context.account! }),
        onDone: 'failed.reauthRequired',
        onError: { target: 'failed.unavailable', actions: 'recordError' },
      },
    },
    fresh: { type: 'final' },
    rotated: { type: 'final' },
    failed: {
      initial: 'unavailable',
      states: {
        // The user has no account with this provider.
        notLinked: { type: 'final', meta: { error: 'AccountNotLinked' } },
        // The provider refused (revoked grant, reused or expired refresh token): sign in with it again.
        reauthRequired: { type: 'final', meta: { error: 'RefreshTokenError' } },
        // The database or the provider could not be reached, or another caller's refresh never finished.
        unavailable: { type: 'final', meta: { error: 'RefreshTokenError' } },
      },
    },
  },
});
