import { withCostScope } from '../shared/records/cost-scope.js';
import type { RunEvent } from '../shared/schemas/event.js';
import type { RunEventView } from './schemas/runs.js';

/** An event as the run detail route returns it: the row, plus `cost_scope` for costed rows. */
export function toEventView(event: RunEvent): RunEventView {
  return withCostScope(event);
}
