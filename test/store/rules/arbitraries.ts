import fc from 'fast-check';
import { runStatusSchema, type Run, type RunStatus } from '../../../src/store/schemas/run.js';
import type { RunHold } from '../../../src/store/rules/run-ownership.js';

/** Arbitraries for the rules' property tests: runs' states and the asks made of them. */

export const statusArb: fc.Arbitrary<RunStatus> = fc.constantFrom(...runStatusSchema.options);
export const ownerArb = fc.constantFrom('sup-a', 'sup-b', 'sup-c');
/** ISO times within one day, so leases are as often live as lapsed. */
export const timeArb = fc
  .integer({ min: 0, max: 86_400_000 })
  .map((ms) => new Date(Date.UTC(2026, 0, 1) + ms).toISOString());

export const holdArb: fc.Arbitrary<RunHold> = fc.record({
  status: statusArb,
  owner_id: fc.option(ownerArb, { nil: null }),
  lease_expires_at: fc.option(timeArb, { nil: null }),
  cancel_requested_at: fc.option(timeArb, { nil: null }),
});

export const askArb = fc.record({
  ownerId: ownerArb,
  fromStatuses: fc.uniqueArray(statusArb, { minLength: 1 }),
  status: statusArb,
  previousOwner: fc.option(ownerArb, { nil: null }),
  resume: fc.boolean(),
  onlyUnowned: fc.boolean(),
});

/** A stored run in `status`, with the facts the rules read. */
export function runOf(status: RunStatus, overrides: Partial<Run> = {}): Run {
  return {
    id: 'run-1',
    workflow_name: 'demo',
    status,
    conversation_id: 'conv-1',
    codebase_id: null,
    working_path: null,
    user_message: 'hello',
    inputs: {},
    metadata: {},
    error: null,
    parent_run_id: null,
    user_id: null,
    owner_id: null,
    lease_expires_at: null,
    created_at: '2026-01-01T00:00:00.000Z',
    started_at: null,
    completed_at: null,
    last_activity_at: '2026-01-01T00:00:00.000Z',
    ...overrides,
  };
}
