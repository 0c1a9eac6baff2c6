// A route of the active organization: requireOrganization answers 401 signed out, and 403 with no active
// organization, for a user no longer a member, or for a role without the permission.
import { requireOrganization } from 'authchart';
import { defineHandler } from 'nitro/h3';
import { authConfig } from '../../auth.config.js';

export default defineHandler(async (event) => {
  const { userId, organization } = await requireOrganization(event, authConfig, { permission: 'report:read' });
  return { userId, organization };
});
