// "Your devices" on the demo's home page: the signed-in user's sessions (listUserSessions), each but this one with an
// "End" button, and "Sign out other devices"; the buttons post to authchart's CSRF-checked sessions/revoke route.
import { escapeHtml } from '../../src/core/html-escape.js';
import { listUserSessions, type AnyH3Event, type ConfigInput } from '../../src/index.js';
import { humanDate } from './style.js';

/** A short name for a browser from its user agent (the demo shows no more). */
function browserName(agent: string | null): string {
  if (!agent) return 'Unknown browser';
  const known = /(Edg|Firefox|Chrome|Safari)\/[\d.]+/.exec(agent)?.[1];
  const os = /(Windows|Mac OS X|Android|iPhone|Linux)/.exec(agent)?.[1];
  const name = known === 'Edg' ? 'Edge' : (known ?? agent.slice(0, 40));
  return os ? `${name} on ${os === 'Mac OS X' ? 'macOS' : os}` : name;
}

/** The card, or '' when nobody is signed in (or the sessions cannot be listed: JWT sessions). */
export async function devicesCard(event: AnyH3Event, config: ConfigInput): Promise<string> {
  const sessions = await listUserSessions(event, config).catch(() => undefined);
  if (!sessions) return '';
  const rows = sessions
    .map((s) => {
      const seen = s.lastSeenAt ?? s.createdAt;
      const when = seen ? `last seen ${escapeHtml(humanDate(new Date(seen)))}` : '';
      const action = s.current ? '<strong>this device</strong>' : `<button type="button" class="secondary" data-end-session="${escapeHtml(s.id)}">End</button>`;
      return `<li data-session${s.current ? ' data-current' : ''}>${escapeHtml(browserName(s.userAgent))}${s.ipAddress ? ` · ${escapeHtml(s.ipAddress)}` : ''} · ${when} ${action}</li>`;
    })
    .join('');
  const others = sessions.length > 1 ? '<p><button type="button" class="secondary" data-end-others>Sign out other devices</button></p>' : '';
  return `<div class="card" id="devices"><h2>Your devices</h2><ul>${rows}</ul>${others}</div>${devicesScript}`;
}

// Each button posts the CSRF token with the session's id (or scope=others) and reloads the page.
const devicesScript = `<script type="module">
async function revoke(fields) {
  const { csrfToken } = await (await fetch('/auth/csrf')).json();
  await fetch('/auth/sessions/revoke', { method: 'POST', body: new URLSearchParams({ csrfToken, ...fields }) });
  location.reload();
}
for (const b of document.querySelectorAll('[data-end-session]')) b.addEventListener('click', () => revoke({ id: b.dataset.endSession }));
document.querySelector('[data-end-others]')?.addEventListener('click', () => revoke({ scope: 'others' }));
</script>`;
