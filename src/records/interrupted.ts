/**
 * An attempt cut short by a supervisor stop or crash is recorded `failed` (transient) with the
 * flat key `interrupted: true` beside the record. It is not the node's outcome: when the run is
 * next driven, the node runs again as a new attempt of the same invocation.
 */
export const INTERRUPTED_KEY = 'interrupted';

export function markInterrupted<T extends { data: Record<string, unknown> }>(event: T): T {
  return { ...event, data: { ...event.data, [INTERRUPTED_KEY]: true } };
}

export function isInterrupted(data: Record<string, unknown> | undefined): boolean {
  return data?.[INTERRUPTED_KEY] === true;
}
