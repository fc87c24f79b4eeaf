// ⑧ Errors of the service itself, queued for the system check system_error
// (ntopng queues each TRACE_ERROR line and stores one alert_system_error per
// line, emergency, at the next minute). Bounded: what the queue cannot hold
// is counted.
const MAX_QUEUED = 256;
const queue: string[] = [];
let dropped = 0;

/** Queues an error for the system_error check (the caller logs it as before). */
export function systemError(message: string): void {
  if (queue.length >= MAX_QUEUED) dropped++;
  else queue.push(message.slice(0, 1024));
}

/** The errors queued since the last call, and how many could not be queued. */
export function takeSystemErrors(): { errors: string[]; dropped: number } {
  const out = { errors: queue.splice(0), dropped };
  dropped = 0;
  return out;
}
