// The application behind every integration: authchart's routes under basePath (router.ts), each wrapped so
// that a client's mistake gets a 4xx or an error redirect, and nothing escapes as an unhandled 500.
import type { InternalConfig } from '../core/config.js';
import { UnknownAction } from '../core/errors.js';
import { isPasswordProvider } from '../core/provider.js';
import { lazy } from '../core/lazy.js';
import { csrf } from './csrf.js';
import { providersJson } from './providers.js';
import { createAuthRequest, requestUrl, type AuthRequest } from './request.js';
import { json } from './response.js';
import { answerRoute, earlyFailure, plainJson, type RouteKind } from './route.js';
import { callbackRoute } from './routes/callback.js';
import { tracesKept } from '../flows/runtime/log.js';
import { INSPECT_SEGMENT } from './inspect-trace.js';
import { errorPage, verifyRequestPage } from './routes/pages.js';
import { getSessionRoute, updateSessionRoute } from './routes/session.js';
import { signInAction, signInPage } from './routes/signin.js';
import { signOutAction, signOutPage } from './routes/signout.js';
import { webauthnOptionsRoute, webauthnScriptRoute } from './routes/webauthn.js';
import { AuthResponse } from '../core/fast-response.js';
import { ANY_METHOD, MalformedPath, RouteTable, routingPath, type RouteParams } from './router.js';

/** The registry's account flows (flows/registry.ts `accountFlowIds`, checked by a test), routed without loading it. */
export const ACCOUNT_FLOWS: readonly string[] = ['signup', 'recover'];

/** What a route is handed besides its request context: the Request, its parsed URL and the path's parameters. */
export interface RouteEvent {
  request: Request;
  url: URL;
  params: RouteParams;
}

type RouteHandler = (req: AuthRequest, event: RouteEvent) => Promise<Response> | Response;
type Route = (event: RouteEvent) => Response | Promise<Response>;

/** authchart's routes for one configuration, as a fetch handler. */
export interface AuthApp {
  fetch(request: Request): Promise<Response>;
}

function route(config: InternalConfig, kind: RouteKind, handler: RouteHandler): Route {
  return (event) => answerRoute(config, kind, () => createAuthRequest(event.request, config, {}, event.url), (req) => handler(req, event));
}

/**
 * Builds the app serving authchart's routes for one resolved configuration.
 *
 * @example
 * const app = createAuthApp(resolveConfig(config)); const res = await app.fetch(new Request('http://localhost/auth/session'))
 */
export function createAuthApp(config: InternalConfig): AuthApp {
  const app = new RouteTable<Route>();
  const base = config.basePath;
  const param = (event: RouteEvent, name: string) => event.params[name] ?? '';

  app.on('GET', `${base}/providers`, route(config, 'json', (req) => json(req, providersJson(req))));
  app.on('GET', `${base}/csrf`, route(config, 'json', (req) => {
    if (config.skipCSRFCheck) return json(req, { error: 'CSRF protection is disabled.' }, 404);
    return json(req, { csrfToken: csrf(req).token }, 200, { noCache: true });
  }));
  app.on('GET', `${base}/session`, route(config, 'json', getSessionRoute));
  app.on('POST', `${base}/session`, route(config, 'json', updateSessionRoute));
  // Session control loads on first use: most requests never list or end sessions.
  const sessions = lazy(() => import('./routes/sessions.js'));
  app.on('GET', `${base}/sessions`, route(config, 'json', async (req) => (await sessions()).listSessionsRoute(req)));
  app.on('POST', `${base}/sessions/revoke`, route(config, 'json', async (req) => (await sessions()).revokeSessionsRoute(req)));
  if (config.organizations) {
    const orgs = lazy(() => import('./routes/organizations.js'));
    app.on('GET', `${base}/organizations`, route(config, 'json', async (req) => (await orgs()).listOrganizationsRoute(req)));
    app.on('POST', `${base}/organizations`, route(config, 'json', async (req) => (await orgs()).createOrganizationRoute(req)));
    app.on('POST', `${base}/organizations/active`, route(config, 'json', async (req) => (await orgs()).switchOrganizationRoute(req)));
    app.on('GET', `${base}/organizations/members`, route(config, 'json', async (req) => (await orgs()).listMembersRoute(req)));
    app.on('POST', `${base}/organizations/members/role`, route(config, 'json', async (req) => (await orgs()).changeRoleRoute(req)));
    app.on('POST', `${base}/organizations/members/remove`, route(config, 'json', async (req) => (await orgs()).removeMemberRoute(req)));
    const orgPage = lazy(() => import('./organizations-page.js'));
    app.on('GET', `${base}/account/organizations`, route(config, 'browser', async (req) => (await orgPage()).organizationsPageRoute(req)));
    app.on('POST', `${base}/account/organizations`, route(config, 'browser', async (req) => (await orgPage()).organizationsActionRoute(req)));
    const invitations = lazy(() => import('./routes/invitations.js'));
    app.on('POST', `${base}/organizations/invitations`, route(config, 'json', async (req) => (await invitations()).inviteRoute(req)));
    app.on('GET', `${base}/organizations/invitations`, route(config, 'json', async (req) => (await invitations()).listInvitationsRoute(req)));
    app.on('POST', `${base}/organizations/invitations/revoke`, route(config, 'json', async (req) => (await invitations()).revokeInvitationRoute(req)));
    app.on('GET', `${base}/invitations/:token`, route(config, 'browser', async (req, event) => (await invitations()).invitationRoute(req, param(event, 'token'))));
    app.on('POST', `${base}/invitations/:token`, route(config, 'browser', async (req, event) => (await invitations()).invitationRoute(req, param(event, 'token'))));
  }
  if (config.organizations && config.sso) {
    // Enterprise SSO: the admin API and page of the active organization, and "Continue with SSO". Loaded on first use.
    const sso = lazy(() => import('./routes/sso.js'));
    const ssoPage = lazy(() => import('./sso-page.js'));
    const admin = `${base}/organizations/sso`;
    app.on('GET', admin, route(config, 'json', async (req) => (await sso()).ssoListRoute(req)));
    app.on('GET', `${admin}/page`, route(config, 'browser', async (req) => (await ssoPage()).ssoPageRoute(req)));
    app.on('POST', `${admin}/connections`, route(config, 'json', async (req) => (await sso()).createConnectionRoute(req)));
    app.on('POST', `${admin}/connections/:id`, route(config, 'json', async (req, event) => (await sso()).updateConnectionRoute(req, param(event, 'id'))));
    app.on('POST', `${admin}/connections/:id/delete`, route(config, 'json', async (req, event) => (await sso()).deleteConnectionRoute(req, param(event, 'id'))));
    app.on('POST', `${admin}/domains`, route(config, 'json', async (req) => (await sso()).claimDomainRoute(req)));
    app.on('POST', `${admin}/domains/verify`, route(config, 'json', async (req) => (await sso()).verifyDomainRoute(req)));
    app.on('POST', `${admin}/domains/route`, route(config, 'json', async (req) => (await sso()).routeDomainRoute(req)));
    app.on('POST', `${admin}/domains/delete`, route(config, 'json', async (req) => (await sso()).deleteDomainRoute(req)));
    app.on('POST', `${base}/sso`, route(config, 'browser', async (req) => (await sso()).continueWithSsoRoute(req)));
    app.on('POST', `${base}/sso/saml/:id/acs`, route(config, 'browser', async (req, event) => (await sso()).samlAcsRoute(req, param(event, 'id'))));
    app.on('GET', `${base}/sso/saml/:id/metadata`, route(config, 'browser', async (req, event) => (await sso()).samlMetadataRoute(req, param(event, 'id'))));
  }
  app.on('GET', `${base}/signin`, route(config, 'browser', signInPage));
  app.on('POST', `${base}/signin/:provider`, route(config, 'browser', (req, event) => signInAction(req, param(event, 'provider'))));
  app.on('GET', `${base}/callback/:provider`, route(config, 'browser', (req, event) => callbackRoute(req, param(event, 'provider'))));
  app.on('POST', `${base}/callback/:provider`, route(config, 'browser', (req, event) => callbackRoute(req, param(event, 'provider'))));
  app.on('GET', `${base}/signout`, route(config, 'browser', signOutPage));
  app.on('POST', `${base}/signout`, route(config, 'browser', signOutAction));
  // The OAuth client and the logout machines load on the first logout request, never on the sign-in path.
  const providerLogout = lazy(() => import('./routes/provider-logout.js'));
  const backchannelLogout = lazy(() => import('./routes/backchannel-logout.js'));
  app.on('GET', `${base}/signout-callback/:provider`, route(config, 'browser', async (req, event) => (await providerLogout()).providerLogoutReturn(req, param(event, 'provider'))));
  app.on('POST', `${base}/backchannel-logout/:provider`, route(config, 'json', async (req, event) => (await backchannelLogout()).backchannelLogoutRoute(req, param(event, 'provider'))));
  app.on('GET', `${base}/error`, route(config, 'browser', errorPage));
  app.on('GET', `${base}/verify-request`, route(config, 'browser', verifyRequestPage));
  // A paused flow's page, read from its flow cookie (where a JSON client's `{ url }` leads): it runs nothing.
  const flows = lazy(() => import('./flow.js'));
  app.on('GET', `${base}/flow/:slot`, route(config, 'browser', async (req, event) => (await flows()).pausedPageRoute(req, param(event, 'slot'))));
  app.on('GET', `${base}/webauthn-options/:provider`, route(config, 'browser', (req, event) => webauthnOptionsRoute(req, param(event, 'provider'))));
  app.on('GET', `${base}/webauthn-script.js`, () => webauthnScriptRoute());
  if (config.secondFactor) {
    // The second-factor machine's doors: a paused check's answers (a sign-in's or a signed-in user's), and a
    // signed-in user's factors: list, enrol, backup codes, remove, and the step-up check.
    // Loaded on first use: an app without second factors never bundles them at start.
    const factors = lazy(() => import('./factors.js'));
    const answer = route(config, 'browser', async (req) => (await factors()).secondFactorRoute(req));
    app.on('POST', `${base}/second-factor`, answer);
    app.on('GET', `${base}/second-factor`, answer);
    app.on('GET', `${base}/factors`, route(config, 'browser', async (req) => (await factors()).listFactorsRoute(req)));
    app.on('POST', `${base}/factors/code`, answer);
    const start = async (req: AuthRequest, event: RouteEvent) => (await factors()).startFactorsRoute(req, param(event, 'action'));
    app.on('GET', `${base}/factors/:action`, route(config, 'browser', start));
    app.on('POST', `${base}/factors/:action`, route(config, 'browser', start));
  }

  // The signed-in flows (the app's `flows`, and change-password with a Password provider): started by a POST, then
  // answered until they end. Loaded on first use.
  if (config.flowsById.size > 0 || [...config.providersById.values()].some(isPasswordProvider)) {
    const start = route(config, 'browser', async (req, event) => (await flows()).signedInFlowRoute(req, param(event, 'id'), 'start'));
    const resume = route(config, 'browser', async (req, event) => (await flows()).signedInFlowRoute(req, param(event, 'id'), 'continue'));
    app.on('POST', `${base}/flows/:id/start`, start);
    app.on('GET', `${base}/flows/:id`, resume);
    app.on('POST', `${base}/flows/:id`, resume);
  }

  // A Password provider's account flows (flows/registry.ts accountFlows: sign-up): the form or a mail's link (GET),
  // the form's answers (POST). Not routed at all without a Password provider; loaded on first use.
  if (config.providers.some(isPasswordProvider)) {
    for (const id of ACCOUNT_FLOWS) {
      const run = route(config, 'browser', async (req, event) => (await flows()).accountFlowRoute(req, id, param(event, 'provider')));
      app.on('GET', `${base}/${id}/:provider`, run);
      app.on('POST', `${base}/${id}/:provider`, run);
    }
  }

  // A signed-in user's accounts: the page, link and unlink. Loaded on first use.
  const account = lazy(() => import('./account.js'));
  app.on('GET', `${base}/account`, route(config, 'browser', async (req) => (await account()).accountPageRoute(req)));
  app.on('POST', `${base}/link/:provider`, route(config, 'browser', async (req, event) => (await account()).linkRoute(req, param(event, 'provider'))));
  app.on('POST', `${base}/account/sessions`, route(config, 'browser', async (req) => (await sessions()).accountSessionsRoute(req)));
  const passkeys = lazy(() => import('./account-passkeys.js'));
  app.on('POST', `${base}/account/passkeys/rename`, route(config, 'browser', async (req) => (await passkeys()).renamePasskeyRoute(req)));
  app.on('POST', `${base}/account/passkeys/remove`, route(config, 'browser', async (req) => (await passkeys()).removePasskeyRoute(req)));
  // The way back after a change of e-mail address (the link mailed to the old address).
  const emailRevert = lazy(() => import('./routes/email-revert.js'));
  app.on('GET', `${base}/email/revert`, route(config, 'browser', async (req) => (await emailRevert()).emailRevertRoute(req)));
  app.on('POST', `${base}/email/revert`, route(config, 'browser', async (req) => (await emailRevert()).emailRevertRoute(req)));
  app.on('POST', `${base}/unlink/:provider/:providerAccountId`, route(config, 'browser', async (req, event) => (await account()).unlinkRoute(req, param(event, 'provider'), param(event, 'providerAccountId'))));

  // The development inspector: not even routed unless `debug: true` outside production.
  // Loaded on first use: the development tools are never part of the sign-in path, nor of a production bundle's
  // eager code.
  if (tracesKept(config)) {
    const inspect = `${base}/${INSPECT_SEGMENT}`;
    const tools = lazy(() => import('../devtools/inspect-routes.js'));
    app.on('GET', inspect, route(config, 'browser', async (req) => (await tools()).inspectListRoute(req)));
    app.on('GET', `${inspect}/mermaid.js`, route(config, 'browser', async (req) => (await tools()).inspectMermaidRoute(req)));
    app.on('GET', `${inspect}/:id`, route(config, 'browser', async (req, event) => (await tools()).inspectFlowRoute(req, param(event, 'id'))));
  }

  // HEAD (a mail scanner probing a magic link, an uptime check) runs no route: a callback must not be consumed, nor
  // a cookie set, by a request whose answer nobody reads. Not a client error worth an error log either.
  const head = () => new AuthResponse(null, { status: 405, headers: { allow: 'GET, POST' } });
  app.on('HEAD', `${base}/**`, head);
  app.on('HEAD', `${base}`, head);

  // Anything else under basePath is an unknown action: 400, logged, never a 404 page or a 500.
  const unknown = (event: { request: Request; url: URL }) => {
    config.logger.error(new UnknownAction(`Unsupported action: ${event.request.method} ${event.url.pathname}`));
    return plainJson({ error: 'UnknownAction', message: 'Bad request.' }, 400);
  };
  app.on(ANY_METHOD, `${base}/**`, unknown);
  app.on(ANY_METHOD, `${base}`, unknown);

  return {
    async fetch(request) {
      let url: URL;
      try {
        url = requestUrl(request);
      } catch (err) {
        // An unparsable URL (a malformed Host): answered as a route whose request context could not be made.
        return earlyFailure(config, err);
      }
      let match;
      try {
        match = app.find(request.method, routingPath(url.pathname));
      } catch (err) {
        if (!(err instanceof MalformedPath)) throw err;
        return unknown({ request, url });
      }
      // Outside basePath: not authchart's to answer.
      if (!match) return request.method === 'HEAD' ? new AuthResponse(null, { status: 404 }) : plainJson({ error: 'NotFound', message: 'Not found.' }, 404);
      return match.handler({ request, url, params: match.params });
    },
  };
}
