import { describe, expect, it } from 'vitest';
import {
  executionMetadataGroups,
  executionMetadataSchema,
  executionRecordSchema,
} from '../../src/records/schemas/execution-record.js';
import { fullRecord } from './fixtures.js';

/** A deep copy of the full record with one change applied. */
function withChange(change: (record: Record<string, any>) => void): unknown {
  const record = structuredClone(fullRecord()) as Record<string, any>;
  change(record);
  return record;
}

function rejects(value: unknown): string[] {
  const parsed = executionRecordSchema.safeParse(value);
  expect(parsed.success).toBe(false);
  return parsed.success ? [] : parsed.error.issues.map((i) => i.path.join('.'));
}

describe('execution record schema', () => {
  it('accepts a record with every group, variant and diagnostic the contract names', () => {
    expect(executionRecordSchema.parse(fullRecord())).toEqual(fullRecord());
  });

  it.each(executionMetadataGroups)('refuses a record without its required group %s', (group) => {
    rejects(withChange((r) => delete r[group]));
  });

  it('refuses a zero standing in for an unavailable value', () => {
    expect(rejects(withChange((r) => (r.spend.costUsd = { source: 'unavailable', reason: 'unsupported', value: 0 })))).toContain(
      'spend.costUsd',
    );
    rejects(withChange((r) => (r.spend.tokens = { source: 'unavailable', reason: 'not_reported', value: { input: 0, output: 0 } })));
  });

  it('keeps a genuine reported zero as a value', () => {
    const record = executionRecordSchema.parse(withChange((r) => (r.spend.costUsd = { source: 'provider', value: 0 })));
    expect(record.spend.costUsd).toEqual({ source: 'provider', value: 0 });
  });

  it('refuses a provider value without its value, and a measurement without a source', () => {
    rejects(withChange((r) => (r.spend.numTurns = { source: 'provider' })));
    rejects(withChange((r) => (r.spend.stopReason = { value: 'end_turn' })));
    rejects(withChange((r) => (r.spend.tokens = { source: 'provider', value: { input: 5 } })));
  });

  it('refuses negative token counts and a cost below zero', () => {
    rejects(withChange((r) => (r.spend.tokens = { source: 'provider', value: { input: -1, output: 0 } })));
    rejects(withChange((r) => (r.spend.costUsd = { source: 'provider', value: -0.01 })));
  });

  it.each([
    ['an unavailable reason', (r: any) => (r.spend.numTurns = { source: 'unavailable', reason: 'missing' })],
    ['an accounting kind', (r: any) => (r.accounting = 'own')],
    ['a node kind', (r: any) => (r.node = { id: 'x', kind: 'python' })],
    ['an exec runtime', (r: any) => (r.node = { id: 'x', kind: 'exec', runtime: 'python' })],
    ['a lifecycle status', (r: any) => (r.lifecycle = { status: 'running' })],
    ['a failure kind', (r: any) => (r.lifecycle.failureKind = 'boom')],
    ['a provider failure class', (r: any) => (r.lifecycle.providerFailure.class = 'teapot')],
    ['a skip reason', (r: any) => (r.lifecycle = { status: 'skipped', reason: 'bored', cause: { kind: 'timeout' } })],
    ['a skip cause kind', (r: any) => (r.lifecycle = { status: 'skipped', reason: 'timeout', cause: { kind: 'later' } })],
    ['a suspension point', (r: any) => (r.lifecycle = { status: 'suspended', point: 'coffee' })],
    ['a tier', (r: any) => (r.binding.tier = 'huge')],
    ['an effort', (r: any) => (r.binding.effort = 'extreme')],
    ['a session origin', (r: any) => (r.binding.sessionOrigin = 'forked')],
    ['a checkout kind', (r: any) => (r.attempt.checkoutStart = { kind: 'svn', sampledAt: 'now' })],
    ['a checkout unavailable reason', (r: any) => (r.attempt.checkoutStart = { kind: 'unavailable', sampledAt: 'now', reason: 'nope' })],
    ['a worktree status', (r: any) => (r.invocation.checkoutStart.worktree = { status: 'messy' })],
    ['a dirty content kind', (r: any) => (r.invocation.checkoutStart.worktree.content = 'some')],
    ['an agent source kind', (r: any) => (r.node = { id: 'x', kind: 'agent', source: { kind: 'file' } })],
    ['an mcp reason', (r: any) => (r.diagnostics.mcpUnavailable.reason = 'offline')],
  ])('refuses an unknown value for %s', (_what, change) => {
    rejects(withChange(change));
  });

  it('holds literal fields to their one allowed value', () => {
    rejects(withChange((r) => (r.lifecycle.retryable = true)));
    rejects(withChange((r) => (r.node = { id: 'w', kind: 'workflow', fanOut: false })));
    rejects(withChange((r) => (r.spend.tokens.value.cachePartial = false)));
    rejects(withChange((r) => (r.spend.costUsd = { source: 'provider', value: 1, partial: false })));
    rejects(withChange((r) => (r.invocation.checkoutStart.worktree.manifest.pointer.type = 'file')));
  });

  it('requires the fields of each variant and of optional groups when present', () => {
    expect(rejects(withChange((r) => delete r.lifecycle.error))).toContain('lifecycle.error');
    rejects(withChange((r) => delete r.lifecycle.providerFailure.evidence));
    rejects(withChange((r) => (r.lifecycle = { status: 'skipped', reason: 'when_condition' })));
    rejects(withChange((r) => (r.lifecycle = { status: 'skipped', reason: 'trigger_rule', cause: { kind: 'upstream_failed' } })));
    rejects(withChange((r) => (r.lifecycle = { status: 'suspended' })));
    rejects(withChange((r) => delete r.binding.model.resolved));
    rejects(withChange((r) => delete r.output.text));
    rejects(withChange((r) => delete r.output.persisted.truncated));
    rejects(withChange((r) => delete r.invocation.loopPath));
    rejects(withChange((r) => delete r.timing.startedAt));
    rejects(withChange((r) => delete r.attempt.id));
    rejects(withChange((r) => (r.node = { id: 'a', kind: 'agent' })));
    rejects(withChange((r) => (r.node = { id: 'a', kind: 'agent', source: { kind: 'command' } })));
    rejects(withChange((r) => delete r.diagnostics.mcpUnavailable.path));
    rejects(withChange((r) => (r.invocation.loopPath = [{ groupId: 'fix', iteration: 1.5 }])));
    rejects(withChange((r) => (r.invocation.checkoutStart.worktree.staged = 0.5)));
  });

  it('accepts a git checkout whose commit and tree are unknown (null)', () => {
    executionRecordSchema.parse(
      withChange((r) => (r.invocation.checkoutStart = { kind: 'git', sampledAt: 't', commit: null, tree: null, worktree: { status: 'clean' } })),
    );
  });

  it('refuses keys the contract does not name', () => {
    rejects(withChange((r) => (r.costUsd = 1)));
    rejects(withChange((r) => (r.spend.tokens.value.reasoning = 5)));
  });

  it('keeps output, diagnostics and the full session id out of the public metadata', () => {
    const { output: _o, diagnostics: _d, sessionId: _s, ...metadata } = fullRecord();
    expect(executionMetadataSchema.parse(metadata)).toEqual(metadata);
    for (const key of ['output', 'diagnostics', 'sessionId'] as const) {
      expect(executionMetadataSchema.safeParse({ ...metadata, [key]: fullRecord()[key] }).success).toBe(false);
    }
  });
});
