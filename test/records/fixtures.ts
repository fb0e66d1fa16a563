import { buildExecutionRecord, type ExecutionRecordInput } from '../../src/records/build-record.js';
import { nodeEventOf, type NodeEventDraft } from '../../src/records/event-data.js';
import { completedState } from '../../src/records/lifecycle.js';
import { provided, unavailable } from '../../src/records/measured.js';
import { notApplicableSpend } from '../../src/records/spend.js';
import type { RunEvent } from '../../src/store/schemas/event.js';
import type { ExecutionRecord } from '../../src/records/schemas/execution-record.js';
import type { TokenUsage } from '../../src/records/schemas/node-spend.js';

export const RUN_ID = 'run-1';
export const T0 = '2026-03-01T10:00:00.000Z';
export const T1 = '2026-03-01T10:00:05.000Z';

/** A completed exec (bash) node: no provider, so every measured value is not_applicable. */
export function execInput(overrides: Partial<ExecutionRecordInput> = {}): ExecutionRecordInput {
  return {
    runId: RUN_ID,
    path: 'build',
    node: { id: 'build', kind: 'exec', runtime: 'sh' },
    invocation: { id: 'inv-build-1', startedAt: T0, loopPath: [] },
    attempt: { id: 'att-build-1', startedAt: T0 },
    timing: { startedAt: T0, durationMs: 42 },
    spend: notApplicableSpend(),
    lifecycle: completedState(),
    output: { text: 'built' },
    ...overrides,
  };
}

/** A completed agent node that reported everything. */
export function agentInput(overrides: Partial<ExecutionRecordInput> = {}): ExecutionRecordInput {
  return {
    runId: RUN_ID,
    path: 'review',
    node: { id: 'review', kind: 'agent', source: { kind: 'command', name: 'review-pr' } },
    invocation: { id: 'inv-review-1', startedAt: T0, loopPath: [] },
    attempt: { id: 'att-review-1', startedAt: T0 },
    binding: {
      provider: 'claude',
      model: { requested: 'large', resolved: provided('claude-opus-4') },
      tier: 'large',
      effort: 'high',
      sessionPreview: 'a1b2c3d4',
      sessionOrigin: 'fresh',
    },
    timing: { startedAt: T0, durationMs: 5000 },
    spend: {
      tokens: provided({ input: 1200, output: 300, cacheRead: 1000, cacheWrite: 50 }),
      costUsd: provided(0.25),
      stopReason: provided('end_turn'),
      numTurns: provided(3),
    },
    lifecycle: completedState(),
    output: { text: 'LGTM', structured: { verdict: 'pass' }, declaredOutputPaths: [['verdict']] },
    sessionId: 'a1b2c3d4-0000-4000-8000-000000000000',
    ...overrides,
  };
}

/** A record with every group and every diagnostic filled, as plain data (not built). */
export function fullRecord(): ExecutionRecord {
  return {
    runId: RUN_ID,
    path: 'fix/review',
    node: { id: 'review', kind: 'agent', source: { kind: 'inline' } },
    invocation: {
      id: 'inv-1',
      startedAt: T0,
      loopPath: [{ groupId: 'fix', iteration: 2 }],
      checkoutStart: {
        kind: 'git',
        sampledAt: T0,
        commit: 'abc123',
        tree: 'def456',
        worktree: {
          status: 'dirty',
          content: 'complete',
          staged: 1,
          unstaged: 2,
          untracked: 0,
          manifest: { pointer: { type: 'service_artifact', run_id: RUN_ID, path: 'checkout/manifest.json' }, sha256: 'f'.repeat(64), entries: 3 },
        },
        cutFromCommit: 'abc000',
      },
    },
    attempt: { id: 'att-2', startedAt: T1, checkoutStart: { kind: 'not_git', sampledAt: T1 } },
    binding: {
      provider: 'codex',
      model: { requested: 'gpt-5', resolved: unavailable('not_reported') },
      tier: 'medium',
      effort: 'xhigh',
      sessionPreview: '0a1b',
      sessionOrigin: 'resume-failed-cold',
    },
    timing: { startedAt: T1, durationMs: 0 },
    spend: {
      tokens: provided({ input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0, cost: 0, cachePartial: true }),
      costUsd: unavailable('unsupported'),
      stopReason: unavailable('unknown'),
      numTurns: provided(0),
    },
    accounting: 'amendment',
    lifecycle: {
      status: 'failed',
      error: 'rate limited',
      retryable: false,
      failureKind: 'rate_limited',
      providerFailure: { class: 'rate_limited', retryAfterMs: 1000, resetAt: T1, evidence: '429 Too Many Requests' },
    },
    output: {
      text: 'partial',
      structured: [1, 'two', null],
      declaredOutputPaths: [['a'], ['b', 'c']],
      persisted: { text: 'part', truncated: true, originalBytes: 7, spillPath: 'artifacts/nodes/review.out' },
    },
    diagnostics: {
      iteration: 2,
      loopIterations: 3,
      maxIterations: 5,
      ordinal: 0,
      outputType: 'review',
      command: 'review-pr',
      status: 'ok',
      sessionSourceNodeId: 'draft',
      childRunId: 'child-1',
      blockedOnChildRunId: 'child-2',
      identity: 'item-a',
      approvalDecision: 'approve',
      expr: "$draft.output == 'x'",
      sessionForkRequested: true,
      sessionForked: false,
      fanOut: false,
      backgroundTasksIncomplete: ['task-1'],
      mcpUnavailable: { path: '.mcp.json', reason: 'config_missing', servers: ['github'] },
    },
    sessionId: 'session-full-id',
  };
}

/**
 * Event rows as the store returns them: drafts get `seq` in order, a conversation and a
 * timestamp, and pass through JSON as the `data` column does.
 */
export function persist(drafts: readonly (NodeEventDraft | RawEvent)[], firstSeq = 1): RunEvent[] {
  return drafts.map((draft, index) => ({
    seq: firstSeq + index,
    run_id: draft.run_id ?? RUN_ID,
    conversation_id: 'conv-1',
    event_type: draft.event_type,
    step_name: draft.step_name,
    data: JSON.parse(JSON.stringify(draft.data)) as Record<string, unknown>,
    created_at: T0,
  }));
}

/** A hand-written row, e.g. one written by an older version with flat keys only. */
export interface RawEvent {
  run_id?: string;
  event_type: string;
  step_name: string | null;
  data: Record<string, unknown>;
}

/** The event of a record built from `input`. */
export function recordEvent(input: ExecutionRecordInput, extras: { pid?: number } = {}): NodeEventDraft {
  return nodeEventOf(buildExecutionRecord(input), extras);
}

/** An agent completion at `path` that reported `costUsd` and the given tokens. */
export function agentSpendEvent(
  path: string,
  costUsd: number,
  tokens: TokenUsage | undefined,
  overrides: Partial<ExecutionRecordInput> = {},
): NodeEventDraft {
  const id = path.split('/').pop()!.replace(/\[\d+\]$/, '');
  return recordEvent(
    agentInput({
      path,
      node: { id, kind: 'agent', source: { kind: 'inline' } },
      spend: {
        tokens: tokens === undefined ? unavailable('not_reported') : provided(tokens),
        costUsd: provided(costUsd),
        stopReason: provided('end_turn'),
        numTurns: provided(1),
      },
      ...overrides,
    }),
  );
}
