import { withCostScope } from '../../records/cost-scope.js';
import type { RunEvent } from '../../store/schemas/event.js';
import type { RunEventView } from '../../wire/runs.js';

/** An event as the run detail route returns it: the row, plus `cost_scope` for costed rows. */
export function toEventView(event: RunEvent): RunEventView {
  return withCostScope(event);
}
