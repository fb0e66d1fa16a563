/**
 * Node execution records (contract: Node Execution Records): builders that only make valid
 * records, their event form, cost scope, run totals and the resume snapshot. Schemas and types
 * live in `records/schemas` (execution-record.ts and the files it imports).
 */
export { provided, unavailable, isProvided, valueOf } from './measured.js';
export {
  notApplicableSpend,
  initialAvailability,
  initialSpend,
  initialResolvedModel,
  finishSpend,
  finishResolvedModel,
  type SpendObservations,
  type MeasurementReports,
} from './spend.js';
export { sumObservations } from './spend-sum.js';
export {
  startedState,
  completedState,
  failedState,
  conditionSkip,
  conditionParseErrorSkip,
  triggerRuleSkip,
  timeoutSkip,
  suspendedState,
  causeKindsBySkipReason,
  type FailureDetails,
} from './lifecycle.js';
export {
  OUTPUT_PREVIEW_MAX_BYTES,
  previewOutput,
  buildOutput,
  storedOutput,
  type OutputInput,
  type OutputPreview,
} from './output-preview.js';
export {
  buildExecutionRecord,
  buildCacheRecord,
  toPublicMetadata,
  type ExecutionRecordInput,
  type CacheRecordInput,
  type CacheDecisionInput,
} from './build-record.js';
export {
  PATH_SEPARATOR,
  assertNodeId,
  nodePath,
  instancePath,
  parseNodePath,
  isValidNodePath,
  isWithinScope,
  parentPath,
  type PathSegment,
} from './node-path.js';
export * from './event-types.js';
export { liveNodeEventData } from './live-event-data.js';
export { attemptStartedEvent, attemptEndedEvent, attemptSuspendedEvent, type AttemptRef, type AttemptEnding } from './attempt-events.js';
export { nodeEventOf, cacheEventOf, fanOutInstancesEventOf, type NodeEventDraft, type NodeEventExtras } from './event-data.js';
export { legacyTypeOf } from './flat-keys.js';
export { costScopeOf, costScopeOfAccounting, withCostScope } from './cost-scope.js';
export { readNodeEvent, type NodeRow, type LifecycleRow, type CacheRow, type UsageObservation } from './read-node-event.js';
export { countedContributions, sumUsage, toRunTotals, type UsageTotals, type UsageContribution } from './usage.js';
export { computeRunTotals, type RunTotalsOptions } from './run-totals.js';
export {
  rebuildRunSnapshot,
  listInFlightNodes,
  type RunSnapshot,
  type NodeSnapshot,
  type ReusableOutput,
  type InFlightAttempt,
} from './run-snapshot.js';
export { RECORD_INVALID_CODE, describeIssues, type RecordIssue } from './record-error.js';
export { parseTolerant } from './parse-tolerant.js';
export { INTERRUPTED_KEY, markInterrupted, isInterrupted } from './interrupted.js';
export { STDERR_DATA_KEY, persistedStream, readPersistedStream, type StreamInput } from './stream-log.js';
