// A user's own factors as they see and change them: what they have (never a secret), a new set of backup codes,
// removing a factor. The machine that orders the changes is machine.ts.
import { randomUUID } from 'node:crypto';
import type { WrappedAdapter } from '../../core/adapter-wrap.js';
import type { AdapterFactor, FactorKind } from '../../core/factors.js';
import type { User } from '../../core/types.js';
import { hashBackupCode, newBackupCodes } from './backup-codes.js';
import type { StageDeps } from './steps.js';

/** A factor as its owner sees it: never its secret. */
export interface FactorSummary {
  id: string;
  kind: FactorKind;
  label: string | null;
  createdAt: string;
  /** Null while an authenticator app waits for its first code. */
  activatedAt: string | null;
}

/** The user a factor flow is for, and what they have. */
export interface FactorAccount {
  user: User;
  factors: FactorSummary[];
}

function factorAdapter(deps: StageDeps) {
  const adapter = deps.req.config.adapter;
  // Checked at start (MissingAdapterMethods): `secondFactor` needs an adapter with the factor methods.
  if (!adapter) throw new Error('Second factors need an adapter.');
  return adapter;
}

const iso = (d: Date | string) => new Date(d).toISOString();

/** A stored factor as its owner may see it. */
export function factorSummary(f: AdapterFactor): FactorSummary {
  return { id: f.id, kind: f.kind, label: f.label ?? null, createdAt: iso(f.createdAt), activatedAt: f.activatedAt ? iso(f.activatedAt) : null };
}

/** The user and their factors (backup codes listed one by one: each row is one unused code). */
export async function loadFactorAccount(deps: StageDeps, userId: string): Promise<FactorAccount> {
  const adapter = factorAdapter(deps);
  const [user, factors] = await Promise.all([adapter.getUser(userId), adapter.listFactors(userId)]);
  return { user: user ?? { id: userId }, factors: factors.map(factorSummary) };
}

/** Whether the user has an active factor (what makes a factor check possible). */
export function hasActiveFactor(account: Pick<FactorAccount, 'factors'>): boolean {
  return account.factors.some((f) => f.activatedAt !== null);
}

/** Ten new backup codes, stored hashed, replacing every earlier one; the plain codes are returned once, to show. */
export async function replaceBackupCodes(deps: StageDeps, userId: string): Promise<string[]> {
  const adapter = factorAdapter(deps);
  const codes = newBackupCodes();
  const now = new Date();
  const write = async (a: WrappedAdapter) => {
    await a.deleteFactors({ userId, kind: 'backup' });
    for (const code of codes) {
      await a.createFactor({ id: randomUUID(), userId, kind: 'backup', secret: hashBackupCode(code), label: 'Backup code', createdAt: now, activatedAt: now });
    }
  };
  // In one transaction where the adapter has them: a failure half-way leaves the old codes, never a partial set
  // (or none) that the user was not shown.
  if (adapter.withTransaction) await adapter.withTransaction(write);
  else await write(adapter);
  return codes;
}

/** Removes one factor of the user (`backup`: all their backup codes); false when there was none. */
export async function removeFactor(deps: StageDeps, userId: string, target: { id?: string; kind?: FactorKind }): Promise<boolean> {
  const removed = await factorAdapter(deps).deleteFactors(target.kind === 'backup' ? { userId, kind: 'backup' } : { userId, id: target.id });
  return removed > 0;
}
