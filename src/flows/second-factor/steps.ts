// The second-factor machine's steps: what a user has and needs, checking a typed code against their factors with the
// attempts counted server-side, and enrolling an authenticator app. The machine that orders them is machine.ts.
import { randomUUID } from 'node:crypto';
import type { WrappedAdapter } from '../../core/adapter-wrap.js';
import type { AdapterFactor } from '../../core/factors.js';
import type { Account, User } from '../../core/types.js';
import type { FlowDeps, FlowFormPage, FlowText } from '../runtime/contract.js';
import { hashBackupCode, looksLikeBackupCode } from './backup-codes.js';
import { openFactorKey, sealFactorKey } from './secret-box.js';
import { base32Key, matchingStep, newTotpKey, qrSvg, totpUri } from './totp.js';

/** What the stage's steps work against: the request (its config and adapter); a sign-in's deps or a signed-in user's. */
export type StageDeps = Pick<FlowDeps, 'req'>;

/** How long a sign-in may wait at the stage. */
export const FACTOR_TTL_MS = 10 * 60_000;


function adapterOf(deps: StageDeps): WrappedAdapter {
  // Checked at start (MissingAdapterMethods): `secondFactor` needs an adapter with the factor methods.
  if (!deps.req.config.adapter) throw new Error('Second factors need an adapter.');
  return deps.req.config.adapter;
}

const isActive = (f: AdapterFactor) => f.activatedAt !== null;

/** How a typed code (or a passkey) fared: `passed` (the session may be issued), `wrong` (try again), `locked` (the sign-in is dead). */
export type CodeCheck = { result: 'passed'; method: 'otp' | 'backup' | 'passkey' } | { result: 'wrong' | 'locked'; attempts: number };

/** Checks `code` against the user's active factors; a TOTP code is spent (its step), a backup code deleted. */
async function matchFactor(deps: StageDeps, userId: string, code: string, only?: string): Promise<'otp' | 'backup' | undefined> {
  const adapter = adapterOf(deps);
  const typed = code.trim().replace(/\s+/g, '');
  const factors = (await adapter.listFactors(userId)).filter((f) => (only ? f.id === only : isActive(f)));
  for (const factor of factors.filter((f) => f.kind === 'totp')) {
    const step = matchingStep(openFactorKey(deps.req.config.secrets, factor.secret), typed, Date.now());
    // Spent atomically: the same code (or an older one) a second time, or from a concurrent request, is refused.
    if (step !== undefined && (await adapter.advanceFactorStep({ id: factor.id, step }))) return 'otp';
  }
  if (!only && looksLikeBackupCode(typed) && (await adapter.useBackupCode({ userId, secret: hashBackupCode(typed) }))) return 'backup';
  return undefined;
}

/**
 * One attempt at the stage. Attempts are counted in the database under the pending sign-in's id (never in the
 * cookie, which a replay would reset); the pending sign-in passes once, at most, and dies after `maxAttempts` misses.
 */
export async function checkFactorCode(
  deps: StageDeps,
  params: { userId: string; challengeId: string; expiresAt: number; code: string; enrolling?: string },
): Promise<CodeCheck> {
  return settleAttempt(deps, params, await matchFactor(deps, params.userId, params.code, params.enrolling));
}

/** Counts an attempt that matched by `method` (passes the pending sign-in, once) or matched nothing (a miss). */
export async function settleAttempt(deps: StageDeps, params: { challengeId: string; expiresAt: number }, method: 'otp' | 'backup' | 'passkey' | undefined): Promise<CodeCheck> {
  const adapter = adapterOf(deps);
  const max = deps.req.config.secondFactor?.maxAttempts ?? 5;
  const expires = new Date(params.expiresAt);
  if (method) {
    if (await adapter.passFactorChallenge({ id: params.challengeId, expires, maxFailures: max })) return { result: 'passed', method };
    return { result: 'locked', attempts: max };
  }
  const attempts = await adapter.failFactorChallenge({ id: params.challengeId, expires });
  return { result: attempts >= max ? 'locked' : 'wrong', attempts };
}

/** The page that asks for a code (and offers a passkey instead, when the user has one). */
export function codePage(purpose: string, error?: FlowText, passkey = false): FlowFormPage {
  return {
    title: { message: purpose === 'signIn' ? 'factor.check.title' : 'factor.check.titleConfirm' },
    message: { message: 'factor.check.message' },
    ...(error ? { error } : {}),
    fields: [{ name: 'code', label: { message: 'factor.code' }, autocomplete: 'one-time-code', inputmode: 'text', maxlength: 11 }],
    submit: { message: 'factor.verify' },
    ...(passkey ? { passkey: { label: { message: 'factor.usePasskey' } } } : {}),
  };
}

/** A new authenticator-app factor, not active until a first code confirms it, and the page that shows it. */
export async function startTotpEnrolment(deps: StageDeps, user: User): Promise<{ factorId: string; page: FlowFormPage }> {
  const adapter = adapterOf(deps);
  const userId = String(user.id);
  // One enrolment at a time: earlier unconfirmed ones are dropped.
  for (const f of await adapter.listFactors(userId)) if (f.kind === 'totp' && !isActive(f)) await adapter.deleteFactors({ userId, id: f.id });
  const key = newTotpKey();
  const factor = await adapter.createFactor({
    id: randomUUID(),
    userId,
    kind: 'totp',
    secret: sealFactorKey(deps.req.config.secrets, key),
    label: 'Authenticator app',
    createdAt: new Date(),
    activatedAt: null,
    lastStep: null,
  });
  return { factorId: factor.id, page: await enrolmentPage(deps, user, key) };
}

/** The enrolment page of a factor waiting for its first code (again, after a wrong one). */
export async function enrolmentPageFor(deps: StageDeps, user: User, factorId: string, error?: FlowText): Promise<FlowFormPage> {
  const factor = (await adapterOf(deps).listFactors(String(user.id))).find((f) => f.id === factorId);
  if (!factor) throw new Error('The factor being enrolled is gone.');
  return enrolmentPage(deps, user, openFactorKey(deps.req.config.secrets, factor.secret), error);
}

async function enrolmentPage(deps: StageDeps, user: User, key: Uint8Array, error?: FlowText): Promise<FlowFormPage> {
  const issuer = deps.req.config.secondFactor?.issuer ?? 'authchart';
  const uri = totpUri(issuer, user.email ?? String(user.id), key);
  return {
    title: { message: 'factor.enrol.title' },
    message: { message: 'manage.enrolMessage' },
    copyable: { label: { message: 'manage.setupKey' }, value: base32Key(key) },
    image: { src: `data:image/svg+xml;base64,${Buffer.from(await qrSvg(uri)).toString('base64')}`, alt: { message: 'factor.enrol.qrAlt', values: { account: uri.split('?')[0]! } } },
    link: { href: uri, text: { message: 'factor.enrol.openApp' } },
    ...(error ? { error } : {}),
    fields: [{ name: 'code', label: { message: 'factor.code' }, autocomplete: 'one-time-code', inputmode: 'numeric', pattern: '[0-9]{6}', maxlength: 6 }],
    submit: { message: 'factor.enrol.submit' },
    // Nothing is turned on until the first code passes: Cancel only goes back.
    leave: { href: 'factors', text: { message: 'manage.cancel' } },
  };
}

/** Makes an enrolled factor active (after its first code passed). */
export async function activateFactor(deps: StageDeps, userId: string, factorId: string): Promise<void> {
  const factor = await adapterOf(deps).activateFactor({ id: factorId, userId, activatedAt: new Date() });
  if (!factor) throw new Error('The factor being enrolled is gone.');
}
