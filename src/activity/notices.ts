// Notice mails from the activity log, opt-in as a sink (`activity: { sinks: [activityNotices({ … })] }`): the user
// is told of a sign-in from a device (user agent) none of their earlier sign-ins came from, and of a changed factor
// (a second factor or passkey added or removed, the password changed or reset). In the user's language (the
// `locale` option, else the default), through the app's mail server or `send`. Off, it costs nothing: no sink, no
// query. On, the new-device check reads the user's earlier sign-ins only for a `signIn.succeeded`, and mails go out
// in the background. Like every sink that is not transactional, it gets a record once the outcome's transaction has
// committed (src/activity/write.ts): no notice of a sign-in or change that was rolled back.
import { sendMailThrough } from '../core/mail-transport.js';
import { translatorFor } from '../core/messages/request.js';
import type { ActivityAdapterMethods, ActivityKind, ActivityRecord, ActivitySink } from './types.js';

/** A notice as it is sent. */
export interface NoticeMail {
  to: string;
  subject: string;
  text: string;
  html: string;
  /** What it tells of. */
  kind: 'newDevice' | ActivityKind;
}

export interface ActivityNoticeOptions {
  /** The site's name in the mail (its host). */
  site: string;
  /** The user's address and language, by id (`adapter.getUser` and a stored locale). Null: no mail. */
  user: (userId: string) => Promise<{ email?: string | null; locale?: string | null } | null>;
  /** Where the earlier sign-ins are read (the adapter, which keeps the records). Without it no new-device notice. */
  log?: Pick<ActivityAdapterMethods, 'listActivity'>;
  /** The mail server (nodemailer URL or options), with `from`; or `send` instead. */
  server?: string | Record<string, unknown>;
  from?: string;
  send?: (mail: NoticeMail) => Promise<void>;
  /** Which notices: both by default. */
  newDevice?: boolean;
  factorChanged?: boolean;
  /** Called with a failure to send (the sign-in has happened; a notice never fails it). */
  onError?: (err: unknown) => void;
}

const FACTOR_KINDS: ReadonlySet<ActivityKind> = new Set<ActivityKind>(['factor.added', 'factor.removed', 'passkey.added', 'passkey.removed', 'password.changed', 'recovery.completed']);
/** How many earlier sign-ins are compared with a new one's device. */
const EARLIER = 100;

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** The notice sink. */
export function activityNotices(options: ActivityNoticeOptions): ActivitySink {
  const wantNewDevice = options.newDevice !== false && options.log !== undefined;
  const wantFactor = options.factorChanged !== false;
  async function notify(record: ActivityRecord, kind: NoticeMail['kind']): Promise<void> {
    const user = await options.user(record.userId!);
    if (!user?.email) return;
    const i18n = await translatorFor(user.locale ?? 'en', {});
    const what = i18n.text(`activity.${record.kind}`);
    const subject = kind === 'newDevice' ? i18n.text('activity.notice.newDevice') : what;
    const time = new Intl.DateTimeFormat(i18n.locale, { dateStyle: 'medium', timeStyle: 'short', timeZone: 'UTC' }).format(record.at) + ' UTC';
    const device = [record.userAgent ?? '?', record.ip].filter(Boolean).join(', ');
    const text = i18n.t('activity.notice.body', { what, site: options.site, device, time });
    const mail: NoticeMail = { to: user.email, subject: `${options.site}: ${subject}`, text, html: `<p>${escapeHtml(text)}</p>`, kind };
    if (options.send) await options.send(mail);
    else if (options.server) await sendMailThrough(options.server, { to: mail.to, from: options.from ?? `no-reply@${options.site}`, subject: mail.subject, text: mail.text, html: mail.html });
  }
  async function isNewDevice(record: ActivityRecord): Promise<boolean> {
    const earlier = await options.log!.listActivity({ userId: record.userId!, kinds: ['signIn.succeeded'], limit: EARLIER });
    return !earlier.records.some((r) => r.id !== record.id && r.userAgent === record.userAgent);
  }
  return {
    name: 'notices',
    write(records) {
      for (const record of records) {
        if (!record.userId) continue;
        let job: Promise<void> | undefined;
        if (wantFactor && FACTOR_KINDS.has(record.kind)) job = notify(record, record.kind);
        else if (wantNewDevice && record.kind === 'signIn.succeeded') job = isNewDevice(record).then((fresh) => (fresh ? notify(record, 'newDevice') : undefined));
        if (!job) continue;
        // In the background: the sink returns at once, inside or outside the outcome's transaction.
        void job.catch((err) => options.onError?.(err));
      }
    },
  };
}

