// The security activity log's types, defined in core (the configuration and the adapter contract name them) and
// imported from here by the flows, the sinks and the webhook outbox.
export type {
  ActivityKind,
  ActivityTransition,
  ActivityRecord,
  ActivityQuery,
  ActivityPage,
  ActivityAdapterMethods,
  ActivitySink,
  ActivityRun,
} from '../core/activity.js';
