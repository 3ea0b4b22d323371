/**
 * Notifications (docs/notifications.md): the events of a run, what each kind of sink receives,
 * and their delivery from the CLI process within a bound. Of our own modules it imports
 * `src/api` (the events' vocabulary) and `src/config` (the sinks); the CLI calls it.
 */
export { ciRunOf } from "./ci";
export { DELIVERY_DEFAULTS, NOTIFY_CONNECTION, deliverAll, notifyDispatcher, retryAfterMs } from "./deliver";
export type {
  DeliveryJob,
  DeliveryOptions,
  DeliveryResult,
  DispatcherFactory,
  NotifyConnection,
} from "./deliver";
export { driftEvents, eventContext, stackRunEvents } from "./events";
export type { DriftChanges, DriftEntry, EventContext, StackRunReport } from "./events";
export {
  EVENT_HEADER,
  IDEMPOTENCY_HEADER,
  SIGNATURE_HEADER,
  TIMESTAMP_HEADER,
  signatureOf,
  sinkRequest,
  slackMessage,
  teamsMessage,
  titleOf,
} from "./formats";
export type { SinkRequest } from "./formats";
export { deliveryLines, deliveryMarkdown, mergeSinks, sendEvents, subscribes, unsetVariables } from "./send";
export type { PlacedSink } from "./send";
export { sampleEvents } from "./samples";
