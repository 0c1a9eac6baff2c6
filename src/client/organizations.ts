// The active organization from a page of the app's own: switch it (`POST {basePath}/organizations/active`), and every
// store in every tab reads the session again, whose `organization` then names it.
import { AuthClientError, basePath, broadcast, getCsrfToken } from './core.js';

/** The active organization as `GET {basePath}/session` and the switch answer it. */
export interface ClientOrganization {
  id: string;
  role: string;
  permissions: string[];
}

/**
 * Makes `organizationId` the session's active organization (null: none). Refused (an {@link AuthClientError} with
 * `OrganizationForbidden`, status 403) unless the user is a member of it now.
 *
 * @example
 * const active = await switchOrganization(select.value)
 * if (active?.permissions.includes('member:invite')) showInviteButton()
 */
export async function switchOrganization(organizationId: string | null): Promise<ClientOrganization | null> {
  const res = await fetch(`${basePath()}/organizations/active`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify({ csrfToken: await getCsrfToken(), organizationId: organizationId ?? '' }),
  });
  const data = (await res.json().catch(() => ({}))) as { active?: ClientOrganization | null; error?: string; message?: string };
  if (!res.ok) throw new AuthClientError(data.error ?? 'FetchError', data.message ?? `POST ${basePath()}/organizations/active answered ${res.status}.`, res.status);
  broadcast('update');
  return data.active ?? null;
}
