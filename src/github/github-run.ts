import type { StoredHook } from '../store/schemas/hook.js';
import type { NewRun, Store } from '../store/store.js';
import { inputsFromPayload } from '../hooks/payload-inputs.js';
import { hookWorkflowOf } from '../runs/hook-run.js';
import { newRunOf } from '../runs/queue-run.js';
import type { WorkflowLookup } from '../runs/schedule-run.js';
import { resolveRunInputs } from '../workflow/schema/run-inputs.js';
import type { IssueComment } from './github-client.js';
import type { GitHubStart } from './github-event.js';
import { githubInputs } from './run-context.js';

/**
 * The run a GitHub event starts, made as a webhook's run is (runs/hook-run.ts): the workflow as
 * its file reads now (the codebase's project first), the hook's payload mapping, and the issue or
 * pull request as the `github_*` inputs the workflow declares. The message (`$ARGUMENTS`) is the
 * command's arguments, else the issue's title. Nothing is written: the store creates the run in
 * the transaction that admits the delivery.
 */
export async function githubRunOf(
  deps: { store: Store; lookup: WorkflowLookup; clock: () => number },
  hook: StoredHook,
  delivery: { id: string; payload: unknown },
  start: GitHubStart,
  context: { comments: IssueComment[]; headBranch: string | undefined; runUrlOf: (runId: string) => string },
): Promise<NewRun> {
  const { codebase, entry } = await hookWorkflowOf(deps, hook, start.workflow);
  const declared = entry.workflow.inputs ?? {};
  const given: Record<string, string> = {};
  for (const [name, value] of Object.entries({ ...inputsFromPayload(hook.inputs, delivery.payload), ...githubInputs(start, context) })) {
    if (Object.hasOwn(declared, name)) given[name] = value;
  }
  const { subject } = start;
  const message = start.args || `GitHub ${subject.isPullRequest ? 'pull request' : 'issue'} ${subject.repository}#${subject.number}: ${given.github_title ?? subject.title}`;
  const run = newRunOf({
    entry,
    inputs: resolveRunInputs(entry.workflow.name, declared, { text: given }),
    message: message.replace(/\u0000/g, '\uFFFD'),
    workingPath: codebase?.default_cwd ?? null,
    codebaseId: codebase?.id ?? null,
    hook: { id: hook.id, name: hook.name, delivery_id: delivery.id },
    clock: deps.clock,
  });
  run.metadata.github = {
    repository: subject.repository,
    number: subject.number,
    kind: subject.isPullRequest ? 'pull_request' : 'issue',
    trigger: start.trigger,
    author: start.sender.login,
    ...(start.commentId !== undefined ? { comment_id: start.commentId } : {}),
    run_url: context.runUrlOf(run.id),
  };
  return run;
}
