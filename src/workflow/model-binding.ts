import { describeUnknownProvider, isRegisteredProvider, type ProviderId } from '../shared/providers/registry.js';

/**
 * Which provider and model an AI node runs with: the one place that decides it, so tiers and
 * `@aliases` can be added here. Order (upstream's):
 * - provider: the node's `provider`, the workflow's `provider`, the config's default assistant, `claude`;
 * - model: the node's `model`, the workflow's `model` (only when the node runs on the workflow's
 *   provider), `assistants.<provider>.model` in config, else none (the provider's own default).
 */

export interface BindingInputs {
  node: { provider?: string | undefined; model?: string | undefined };
  workflow: { provider?: string | undefined; model?: string | undefined };
  config: { defaultAssistant?: string | undefined; assistants?: Readonly<Record<string, { model?: string | undefined }>> };
}

export type ModelBinding =
  | {
      ok: true;
      provider: ProviderId;
      /** The model to ask for; undefined lets the provider choose. */
      model: string | undefined;
      /** Where the model came from, for logs and docs. */
      modelSource: 'node' | 'workflow' | 'config' | 'provider_default';
    }
  | { ok: false; error: string };

export const DEFAULT_ASSISTANT: ProviderId = 'claude';

export function resolveModelBinding(inputs: BindingInputs): ModelBinding {
  const { node, workflow, config } = inputs;
  const provider = node.provider ?? workflow.provider ?? config.defaultAssistant ?? DEFAULT_ASSISTANT;
  if (!isRegisteredProvider(provider)) return { ok: false, error: describeUnknownProvider(provider) };
  const workflowProvider = workflow.provider ?? config.defaultAssistant ?? DEFAULT_ASSISTANT;
  const candidates: [string | undefined, 'node' | 'workflow' | 'config'][] = [
    [node.model, 'node'],
    [workflowProvider === provider ? workflow.model : undefined, 'workflow'],
    [config.assistants?.[provider]?.model, 'config'],
  ];
  for (const [model, source] of candidates) {
    if (model === undefined) continue;
    if (model.startsWith('@')) {
      return { ok: false, error: `Model alias '${model}' cannot be resolved: aliases are not supported in this version; name a model instead` };
    }
    return { ok: true, provider, model, modelSource: source };
  }
  return { ok: true, provider, model: undefined, modelSource: 'provider_default' };
}
