import { getProvider } from '../../../shared/providers/registry.js';
import type { ProviderAdapter } from '../../providers/provider-adapter.js';
import type { AgentCall, AgentOutcome, AgentRunOptions } from './agent-call.js';
import { applyOutputContract } from './output-contract.js';
import { callProvider } from './provider-call.js';
import { askForStructuredAnswer } from './structured-answer.js';

export type { AgentCall, AgentOutcome, AgentRunOptions, AgentTask } from './agent-call.js';

/**
 * Drives one AI attempt through its adapter (provider-call.ts: the watchdogs, cancel, the
 * adapter's end). With an `output_format`, the answer must match it: a provider that enforces
 * schemas is called once and a wrong answer fails the attempt (`output_contract`); a best-effort
 * one is shown the schema in its prompt and asked again after a wrong answer (structured-answer.ts).
 */
export async function runAgent(task: AgentCall, adapter: ProviderAdapter, opts: AgentRunOptions): Promise<AgentOutcome> {
  const schema = task.outputFormat;
  if (schema === undefined) return callProvider(task, adapter, opts);
  if (getProvider(task.provider)?.capabilities.structuredOutput === 'best_effort') return askForStructuredAnswer(task, schema, adapter, opts);
  return applyOutputContract(schema, await callProvider(task, adapter, opts));
}
