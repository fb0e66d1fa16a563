import { sumObservations } from '../../../records/index.js';
import { cancelledFailure, stopRequestOf } from '../../cancel-reason.js';
import { providersResumingSessions } from '../../../shared/providers/available.js';
import type { ProviderAdapter, ProviderEnd } from '../../providers/provider-adapter.js';
import type { AgentCall, AgentOutcome, AgentRunOptions } from './agent-call.js';
import { checkOutputContract } from './output-contract.js';
import { callProvider } from './provider-call.js';

/**
 * A node's `output_format` on a provider that does not enforce schemas (registry:
 * `structuredOutput: best_effort`). The prompt carries the schema and asks for one JSON object
 * matching it, and nothing else. An answer that does not match (not JSON, or against the schema)
 * is asked again within the same attempt, naming what was wrong: in the provider's session when
 * its adapter continues sessions and the first call named one, so the model sees its own answer;
 * else in a fresh call whose prompt quotes the answer. Every call's spend is summed into the
 * attempt's end. When no answer matches, the attempt fails with `output_contract` naming the
 * error of each answer.
 */

/** How many times a best-effort provider is asked again after an answer that does not match. */
export const STRUCTURED_REASKS = 1;

/** The longest earlier answer quoted back in a fresh call (a provider without sessions). */
const QUOTED_ANSWER_MAX = 8_000;

const ANSWER_RULE = 'Answer with one JSON object that matches the JSON Schema below, and nothing else: no text before or after it, no code fence.';

/** The prompt a best-effort provider gets: the node's prompt, then the schema and how to answer. */
export function promptWithSchema(prompt: string, schema: Record<string, unknown>): string {
  return `${prompt}\n\n---\n\n${ANSWER_RULE}\n\n${JSON.stringify(schema, null, 2)}\n`;
}

/** The re-ask sent into the session that holds the question and the wrong answer. */
export function sessionReaskPrompt(schema: Record<string, unknown>, problem: string): string {
  return `Your answer cannot be used: ${problem}.\n\n${ANSWER_RULE}\n\n${JSON.stringify(schema, null, 2)}\n`;
}

/** The re-ask of a provider without a session: the question again, the wrong answer and what was wrong with it. */
export function freshReaskPrompt(prompt: string, schema: Record<string, unknown>, answer: string, problem: string): string {
  const quoted = answer.length > QUOTED_ANSWER_MAX ? `${answer.slice(0, QUOTED_ANSWER_MAX)}\n[… cut]` : answer;
  const earlier = quoted.trim() === '' ? 'It was empty.' : `It was:\n<earlier-answer>\n${quoted}\n</earlier-answer>`;
  return (
    `${promptWithSchema(prompt, schema)}\n---\n\n` +
    `An earlier answer to this request cannot be used: ${problem}.\n${earlier}\n\n` +
    'Answer again with one JSON object that matches the JSON Schema above, and nothing else: no text before or after it, no code fence.\n'
  );
}

/** Runs the attempt's calls until an answer matches `schema` or the re-asks are spent. */
export async function askForStructuredAnswer(
  task: AgentCall,
  schema: Record<string, unknown>,
  adapter: ProviderAdapter,
  opts: AgentRunOptions,
): Promise<AgentOutcome> {
  const problems: string[] = [];
  const ends: ProviderEnd[] = [];
  let outcome = await callProvider({ ...task, prompt: promptWithSchema(task.prompt, schema) }, adapter, opts, 1);
  for (;;) {
    ends.push(outcome.end);
    outcome = { ...outcome, end: joinEnds(ends) };
    if (outcome.status !== 'completed') return withReasks(outcome, problems);
    const check = checkOutputContract(schema, outcome.end.structured, outcome.output);
    if (check.ok) return withReasks({ ...outcome, output: JSON.stringify(check.value), structured: check.value }, problems);
    if (problems.length >= STRUCTURED_REASKS) {
      const error = `output_format: no answer matched the schema in ${problems.length + 1} asks (${[...problems, check.problem].map((p, i) => `answer ${i + 1}: ${p}`).join('; ')})`;
      return withReasks({ ...outcome, status: 'failed', error, failureKind: 'output_contract', retryable: false }, problems);
    }
    problems.push(check.problem);
    if (opts.signal.aborted) return { ...outcome, status: 'cancelled', ...cancelledFailure(stopRequestOf(opts.signal.reason)), reasked: problems };
    outcome = await callProvider(reaskOf(task, schema, outcome, check.problem), adapter, opts, problems.length + 1);
  }
}

/**
 * The next call: the session the wrong answer was given in, continued, where the adapter
 * resumes sessions (it was made moments ago in this attempt's session folder); else a fresh call
 * that does not continue the previous attempt's session either.
 */
function reaskOf(task: AgentCall, schema: Record<string, unknown>, answer: AgentOutcome, problem: string): AgentCall {
  const session = answer.end.sessionId;
  // The re-ask continues this attempt's own session: never another node's again (no second fork).
  const { sessionSource: _source, ...own } = task;
  if (session !== undefined && providersResumingSessions.includes(task.provider)) {
    return { ...own, prompt: sessionReaskPrompt(schema, problem), resumeSessionId: session };
  }
  const { resumeSessionId: _previous, ...fresh } = own;
  return { ...fresh, prompt: freshReaskPrompt(task.prompt, schema, answer.output, problem) };
}

/**
 * The attempt's end from its calls' ends: the last call's answer, failure and session, the first
 * model and session the provider named when a later call did not, the session origin of the
 * first call (what the attempt did with its node's earlier session), and the spend of every call
 * that reached the provider, summed.
 */
function joinEnds(ends: readonly ProviderEnd[]): ProviderEnd {
  if (ends.length === 1) return ends[0]!;
  const { sessionOrigin: _last, resolvedModel: _model, sessionId: _session, ...last } = ends[ends.length - 1]!;
  const latest = <K extends 'resolvedModel' | 'sessionId'>(key: K) => ends.map((e) => e[key]).filter((v) => v !== undefined).at(-1);
  const resolvedModel = latest('resolvedModel');
  const sessionId = latest('sessionId');
  const origin = ends[0]!.sessionOrigin;
  return {
    ...last,
    called: ends.some((e) => e.called),
    observations: sumObservations(ends.filter((e) => e.called).map((e) => e.observations)),
    ...(resolvedModel !== undefined ? { resolvedModel } : {}),
    ...(sessionId !== undefined ? { sessionId } : {}),
    ...(origin !== undefined ? { sessionOrigin: origin } : {}),
  };
}

function withReasks(outcome: AgentOutcome, problems: readonly string[]): AgentOutcome {
  return problems.length > 0 ? { ...outcome, reasked: [...problems] } : outcome;
}
