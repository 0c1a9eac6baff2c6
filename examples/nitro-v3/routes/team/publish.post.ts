// Publishing a report needs `report:publish`: an owner has every permission, an analyst this one, a member not.
import { requireOrganization } from 'authchart';
import { defineHandler } from 'nitro/h3';
import { authConfig } from '../../auth.config.js';

export default defineHandler(async (event) => {
  const { organization } = await requireOrganization(event, authConfig, { permission: 'report:publish' });
  return { published: true, organizationId: organization.organizationId };
});
