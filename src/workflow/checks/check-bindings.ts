import { describeUnknownProvider, getProvider, isRegisteredProvider } from '../../shared/providers/registry.js';
import type { WorkflowNode } from '../schema/node-schema.js';
import { isPlainObject } from '../loading/unknown-keys.js';
import type { WorkflowDefinitionDraft } from '../schema/workflow-schema.js';
import { childRefusal, isInteractive, scheduleRefusal } from '../schema/interactive.js';

/**
 * Checks what a workflow binds to outside itself: providers (against the registry), command
 * files and child workflows (when the caller can look them up), plus the settings that name
 * nodes (`returns`, `loop.until_field`), and the workflow classes: an interactive workflow is
 * started by no schedule and by no other workflow (schema/interactive.ts).
 */

type BindingSettings = Partial<Pick<WorkflowDefinitionDraft, 'name' | 'provider' | 'returns' | 'outcome_field' | 'persist_sessions' | 'interactive' | 'triggers'>>;

export interface BindingLookups {
  /** Whether a command named this exists for the workflow's project. Omitted: not checked. */
  commandExists?: ((name: string) => boolean) | undefined;
  /** Whether a workflow named this can be found. Omitted: not checked. */
  workflowExists?: ((name: string) => boolean) | undefined;
  /** Whether the workflow named this declares `interactive: true`. Omitted: not checked (the run checks). */
  workflowIsInteractive?: ((name: string) => boolean) | undefined;
}

export function checkBindings(
  workflow: BindingSettings,
  nodes: readonly WorkflowNode[],
  lookups: BindingLookups,
): string[] {
  const errors: string[] = [];
  if (workflow.provider !== undefined && !isRegisteredProvider(workflow.provider)) {
    errors.push(describeUnknownProvider(workflow.provider));
  }
  const topIds = new Set(nodes.map((n) => n.id));
  if (workflow.returns !== undefined && !topIds.has(workflow.returns)) {
    errors.push(`'returns' names unknown node '${workflow.returns}'`);
  }
  if (isInteractive(workflow) && (workflow.triggers ?? []).length > 0) {
    errors.push(`'triggers': ${scheduleRefusal(workflow.name ?? '(unnamed)')}`);
  }
  if (workflow.outcome_field !== undefined && workflow.returns === undefined) {
    errors.push("'outcome_field' needs 'returns' (the node whose output holds the field)");
  }
  for (const node of nodes) errors.push(...checkNode(node, `Node '${node.id}'`, workflow, lookups));
  return errors;
}

function checkNode(
  node: WorkflowNode,
  name: string,
  workflow: BindingSettings,
  lookups: BindingLookups,
): string[] {
  const errors: string[] = [];
  const provider = 'provider' in node ? node.provider : undefined;
  if (provider !== undefined && !isRegisteredProvider(provider)) {
    errors.push(`${name}: ${describeUnknownProvider(provider).replace(/^Unknown/, 'unknown')}`);
  }
  const command = 'command' in node ? node.command : 'loop' in node ? node.loop.command : undefined;
  if (command !== undefined && lookups.commandExists && !lookups.commandExists(command)) {
    errors.push(`${name}: command '${command}' not found (no ${command}.md in the project, home or bundled commands folders)`);
  }
  if ('workflow' in node && lookups.workflowExists && !lookups.workflowExists(node.workflow)) {
    errors.push(`${name}: workflow '${node.workflow}' not found`);
  }
  if ('workflow' in node && lookups.workflowIsInteractive?.(node.workflow)) {
    errors.push(`${name}: ${childRefusal(node.workflow)}`);
  }
  if ('loop' in node && node.loop.until_field !== undefined) {
    const field = node.loop.until_field;
    const schema = node.output_format;
    const property = isPlainObject(schema?.properties) ? schema.properties[field] : undefined;
    const required = Array.isArray(schema?.required) && schema.required.includes(field);
    if (!isPlainObject(property) || property.type !== 'boolean' || !required) {
      errors.push(`${name}: 'loop.until_field' '${field}' must be a required boolean property of the node's output_format`);
    }
  }
  if (('prompt' in node || 'command' in node) && (node.persist_session ?? workflow.persist_sessions) && node.context !== 'fresh') {
    const effective = provider ?? workflow.provider;
    const capabilities = effective !== undefined ? getProvider(effective)?.capabilities : undefined;
    if (capabilities && !capabilities.sessionResume) {
      errors.push(`${name}: persist_session needs a provider that can resume sessions; '${effective}' cannot`);
    }
  }
  if ('loop_group' in node) {
    // The group's provider is its body's default, as the workflow's is the group's.
    const inner = node.provider !== undefined ? { ...workflow, provider: node.provider } : workflow;
    node.loop_group.nodes.forEach((body) => {
      errors.push(...checkNode(body, `${name} → loop_group node '${body.id}'`, inner, lookups));
    });
  }
  return errors;
}
