import { describe, expect, it } from 'vitest';
import { evaluateTriggerRule, type DependencyOutcome } from '../../src/workflow/graph/trigger-rule.js';

const deps = (...outcomes: DependencyOutcome['outcome'][]): DependencyOutcome[] =>
  outcomes.map((outcome, i) => ({ id: `d${i}`, outcome }));

describe('trigger rules', () => {
  it('all_success runs only when every dependency completed, naming the first failure otherwise', () => {
    expect(evaluateTriggerRule('all_success', deps('completed', 'completed'))).toEqual({ run: true });
    expect(evaluateTriggerRule('all_success', deps('completed', 'failed'))).toEqual({
      run: false,
      cause: { kind: 'upstream_failed', origin: 'd1' },
    });
    expect(evaluateTriggerRule('all_success', deps('skipped', 'completed'))).toEqual({
      run: false,
      cause: { kind: 'upstream_skipped', origin: 'd0' },
    });
  });

  it('one_success runs when any dependency completed', () => {
    expect(evaluateTriggerRule('one_success', deps('failed', 'completed'))).toEqual({ run: true });
    expect(evaluateTriggerRule('one_success', deps('skipped', 'skipped')).run).toBe(false);
  });

  it('none_failed_min_one_success tolerates skips but not failures', () => {
    expect(evaluateTriggerRule('none_failed_min_one_success', deps('skipped', 'completed'))).toEqual({ run: true });
    expect(evaluateTriggerRule('none_failed_min_one_success', deps('failed', 'completed')).run).toBe(false);
    expect(evaluateTriggerRule('none_failed_min_one_success', deps('skipped')).run).toBe(false);
  });

  it('all_done runs whatever the outcomes, and a node without dependencies always runs', () => {
    expect(evaluateTriggerRule('all_done', deps('failed', 'skipped'))).toEqual({ run: true });
    expect(evaluateTriggerRule('all_success', [])).toEqual({ run: true });
  });
});
