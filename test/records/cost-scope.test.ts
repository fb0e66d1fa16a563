import { describe, expect, it } from 'vitest';
import { buildExecutionRecord } from '../../src/records/build-record.js';
import { costScopeOf, withCostScope } from '../../src/records/cost-scope.js';
import { nodeEventOf } from '../../src/records/event-data.js';
import { accountingSchema } from '../../src/records/schemas/execution-record.js';
import { agentInput, execInput, persist } from './fixtures.js';

describe('cost scope (accounting rule 3)', () => {
  it('maps node accounting to own and every other kind to total', () => {
    for (const accounting of accountingSchema.options) {
      const [event] = persist([nodeEventOf(buildExecutionRecord(agentInput({ accounting })))]);
      expect(costScopeOf(event!.data)).toBe(accounting === 'node' ? 'own' : 'total');
    }
  });

  it('falls back to the aggregate flag for historical rows', () => {
    expect(costScopeOf({ cost_usd: 1, aggregate: true })).toBe('total');
    expect(costScopeOf({ cost_usd: 1 })).toBe('own');
    expect(costScopeOf({ cost_usd: 1, aggregate: 'yes' })).toBe('own');
    expect(costScopeOf({ cost_usd: 1, accounting: 'instance' })).toBe('total');
  });

  it('adds cost_scope to a serialised event only when data.cost_usd is a number', () => {
    const [agent, exec] = persist([nodeEventOf(buildExecutionRecord(agentInput())), nodeEventOf(buildExecutionRecord(execInput()))]);
    expect(withCostScope(agent!)).toEqual({ ...agent, cost_scope: 'own' });
    expect(withCostScope(exec!)).toBe(exec);
    expect(withCostScope({ data: { cost_usd: '0.5' } })).not.toHaveProperty('cost_scope');
    expect(withCostScope({ data: { cost_usd: 0, aggregate: true } })).toEqual({ data: { cost_usd: 0, aggregate: true }, cost_scope: 'total' });
  });

  it('does not change the event it is given', () => {
    const [event] = persist([nodeEventOf(buildExecutionRecord(agentInput()))]);
    const before = structuredClone(event);
    withCostScope(event!);
    expect(event).toEqual(before);
  });
});
