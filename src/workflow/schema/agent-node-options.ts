import type { AgentNodeOptions } from '../../shared/providers/agent-options.js';
import type { WorkflowNode } from './node-schema.js';

/** The provider options an AI node writes, in the adapters' spelling; unset keys are left out. */
export function agentNodeOptionsOf(node: Extract<WorkflowNode, { prompt: string } | { command: string }>): AgentNodeOptions {
  const written: AgentNodeOptions = {
    allowedTools: node.allowed_tools,
    deniedTools: node.denied_tools,
    mcp: node.mcp,
    skills: node.skills,
    hooks: node.hooks,
    agents: node.agents,
    thinking: node.thinking,
    maxBudgetUsd: node.maxBudgetUsd,
    fallbackModel: node.fallbackModel,
    betas: node.betas,
    sandbox: node.sandbox,
    settingSources: node.settingSources,
    pi: node.pi,
  };
  return Object.fromEntries(Object.entries(written).filter(([, v]) => v !== undefined)) as AgentNodeOptions;
}
