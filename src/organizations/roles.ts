// Roles as sets of permissions: the built-in owner, admin and member, merged with the app's roles. Every decision is
// made on permissions (a role may grant only what its granter holds), never on a role's name.
import { builtInRoles, type OrganizationsOptions } from '../core/organizations.js';

/** The resolved roles of a configuration: each name with its permissions (`*`: every permission). */
export type RoleTable = ReadonlyMap<string, ReadonlySet<string>>;

/** The built-in roles with the app's merged in (a built-in name there adds permissions; owner keeps `*`). */
export function resolveRoles(options: OrganizationsOptions | undefined): RoleTable {
  const table = new Map<string, Set<string>>();
  for (const [name, permissions] of Object.entries(builtInRoles)) table.set(name, new Set(permissions));
  for (const [name, permissions] of Object.entries(options?.roles ?? {})) {
    if (name === 'owner') continue;
    if (!/^[A-Za-z0-9_:-]{1,64}$/.test(name)) throw new Error(`Role name ${JSON.stringify(name)} may only hold letters, digits, "_", ":" and "-".`);
    const set = table.get(name) ?? new Set<string>();
    for (const p of permissions) if (p !== '*') set.add(p);
    table.set(name, set);
  }
  return table;
}

/** Whether `role` grants `permission` (an unknown role grants nothing). */
export function grants(roles: RoleTable, role: string, permission: string): boolean {
  const set = roles.get(role);
  return set !== undefined && (set.has('*') || set.has(permission));
}

/** The permissions of `role` as a list (`['*']` for owner; `[]` for a role the configuration no longer has). */
export function permissionsOf(roles: RoleTable, role: string): string[] {
  return [...(roles.get(role) ?? [])];
}

/**
 * Whether a holder of `actor` may hand out, or take away, `target`: every permission `target` grants must be one
 * `actor` grants. So an admin can neither raise anyone to owner (nor to an app role with a permission admins lack)
 * nor demote an owner.
 */
export function within(roles: RoleTable, actor: string, target: string): boolean {
  const mine = roles.get(actor);
  const theirs = roles.get(target);
  if (!mine || !theirs) return false;
  if (mine.has('*')) return true;
  if (theirs.has('*')) return false;
  for (const p of theirs) if (!mine.has(p)) return false;
  return true;
}

// Each configuration's role table, resolved once.
const tables = new WeakMap<object, RoleTable>();

/** The role table of a resolved configuration (built-in roles when `organizations` sets none). */
export function rolesOf(config: { organizations?: OrganizationsOptions }): RoleTable {
  let table = tables.get(config);
  if (!table) tables.set(config, (table = resolveRoles(config.organizations)));
  return table;
}
