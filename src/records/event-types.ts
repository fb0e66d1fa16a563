import type { CacheAction } from './schemas/cache-record.js';
import type { LifecycleStatus } from './schemas/node-lifecycle.js';

/** The event type a record is written under, by lifecycle status. `node_suspended` is Cairn's name. */
export const nodeEventTypeByStatus = {
  started: 'node_started',
  completed: 'node_completed',
  failed: 'node_failed',
  skipped: 'node_skipped',
  suspended: 'node_suspended',
} as const satisfies Record<LifecycleStatus, string>;

/** The event type a cache record is written under, by action (contract: Events). */
export const cacheEventTypeByAction = {
  replayed: 'node_skipped_prior_success',
  reset: 'node_always_run_reset',
  invalidated: 'node_prior_cache_invalidated',
} as const satisfies Record<CacheAction, string>;

export type LifecycleEventType = (typeof nodeEventTypeByStatus)[LifecycleStatus];
export type CacheEventType = (typeof cacheEventTypeByAction)[CacheAction];
export type NodeEventType = LifecycleEventType | CacheEventType;

export const lifecycleEventTypes: readonly LifecycleEventType[] = Object.values(nodeEventTypeByStatus);
export const cacheEventTypes: readonly CacheEventType[] = Object.values(cacheEventTypeByAction);
export const nodeEventTypes: readonly NodeEventType[] = [...lifecycleEventTypes, ...cacheEventTypes];

const statusByEventType = new Map<string, LifecycleStatus>(
  Object.entries(nodeEventTypeByStatus).map(([status, type]) => [type, status as LifecycleStatus]),
);
const actionByEventType = new Map<string, CacheAction>(
  Object.entries(cacheEventTypeByAction).map(([action, type]) => [type, action as CacheAction]),
);

/** The lifecycle status a node event type stands for, if it is one. */
export function statusOfEventType(eventType: string): LifecycleStatus | undefined {
  return statusByEventType.get(eventType);
}

/** The cache action a node event type stands for, if it is one. */
export function cacheActionOfEventType(eventType: string): CacheAction | undefined {
  return actionByEventType.get(eventType);
}
