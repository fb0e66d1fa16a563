import { describe, expect, it } from 'vitest';
import { cacheRecordSchema } from '../../src/records/schemas/cache-record.js';
import { fanOutInstancesSchema } from '../../src/records/schemas/fan-out-instances.js';
import { RUN_ID } from './fixtures.js';

const base = { runId: RUN_ID, path: 'build', node: { id: 'build', kind: 'exec', runtime: 'sh' } };

describe('cache record schema', () => {
  it('accepts each action with the fields the contract gives it', () => {
    for (const cache of [
      { action: 'replayed', output: { text: 'x', structured: { a: 1 }, declaredOutputPaths: [['a']] } },
      { action: 'reset', prior: { text: 'x', persisted: { text: 'x', truncated: false } } },
      { action: 'invalidated', prior: { text: 'x' }, invalidatingDeps: ['a', 'b'] },
    ]) {
      expect(cacheRecordSchema.parse({ ...base, cache })).toEqual({ ...base, cache });
    }
  });

  it('refuses an action without its required output', () => {
    expect(cacheRecordSchema.safeParse({ ...base, cache: { action: 'replayed' } }).success).toBe(false);
    expect(cacheRecordSchema.safeParse({ ...base, cache: { action: 'reset', output: { text: 'x' } } }).success).toBe(false);
    expect(cacheRecordSchema.safeParse({ ...base, cache: { action: 'invalidated', prior: { text: 'x' } } }).success).toBe(false);
    expect(cacheRecordSchema.safeParse({ ...base, cache: { action: 'evicted', prior: { text: 'x' } } }).success).toBe(false);
  });

  it('carries no attempt, binding, timing or spend', () => {
    const cache = { action: 'replayed', output: { text: 'x' } };
    for (const extra of ['attempt', 'binding', 'timing', 'spend', 'lifecycle']) {
      expect(cacheRecordSchema.safeParse({ ...base, cache, [extra]: {} }).success).toBe(false);
    }
  });
});

describe('fan-out instance snapshot schema', () => {
  const instance = (ordinal: number, identity: string) => ({ ordinal, identity, item: { file: `${identity}.ts` }, inputs: { file: identity } });

  it('accepts instances in ordinal order with unique identities', () => {
    expect(fanOutInstancesSchema.parse([instance(0, 'a'), instance(1, 'b')])).toHaveLength(2);
  });

  it('refuses ordinals out of order, duplicate identities and non-JSON items', () => {
    expect(fanOutInstancesSchema.safeParse([instance(1, 'a')]).success).toBe(false);
    expect(fanOutInstancesSchema.safeParse([instance(0, 'a'), instance(1, 'a')]).success).toBe(false);
    expect(fanOutInstancesSchema.safeParse([{ ...instance(0, 'a'), item: () => 1 }]).success).toBe(false);
    expect(fanOutInstancesSchema.safeParse([{ ...instance(0, 'a'), identity: '' }]).success).toBe(false);
  });
});
