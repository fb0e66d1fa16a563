import type { Run } from '../../store/schemas/run.js';
import { newRunLevelEvent } from '../../store/schemas/run-level-events.js';
import type { NewRunEvent } from '../../store/schemas/event.js';
import { checkProviderOptions } from '../../workflow/checks/check-provider-options.js';
import { DEFAULT_ASSISTANT, resolveModelBinding } from '../../models/model-binding.js';
import type { ModelLayers } from '../../models/model-layers.js';
import type { WorkflowDefinition } from '../../workflow/schema/workflow-schema.js';

/**
 * At a run's start, the node options its providers cannot honour, judged with each AI node's
 * provider as this run resolves it (node, workflow, the run's and the user's default assistant,
 * a tier's or an alias's provider). Validation judged the written providers; a warning it could
 * not see (a node that names no provider, run with a default assistant other than `claude`) is
 * written here, as a `workflow_parse_warnings` event, so the run's log says it before any call.
 * Undefined when there is nothing new to say.
 */
export function optionWarningsEvent(run: Run, definition: WorkflowDefinition, models: ModelLayers): NewRunEvent | undefined {
  const workflow = { provider: definition.provider, model: definition.model };
  const warnings = checkProviderOptions(definition, definition.nodes, DEFAULT_ASSISTANT, (site) => {
    const binding = resolveModelBinding({ node: { provider: site.provider, model: site.model }, workflow, layers: models });
    return binding.ok ? binding.provider : undefined;
  });
  const known = new Set(run.metadata.parse_warnings ?? []);
  const fresh = warnings.filter((w) => !known.has(w));
  return fresh.length > 0 ? newRunLevelEvent(run, 'workflow_parse_warnings', { warnings: fresh }) : undefined;
}
