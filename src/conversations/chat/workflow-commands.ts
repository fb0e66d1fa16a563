import { CairnError } from '../../shared/errors.js';
import { terminalRunStatuses, type Run } from '../../store/schemas/run.js';
import { resolveRunInputs } from '../../workflow/schema/run-inputs.js';
import { abandonableRunStatuses, requestGateAnswer, requestResume, resumableRunStatuses, reloadedDefinition, type GateVerb } from '../../runs/run-operations.js';
import { runErrorText } from '../../runs/run-texts.js';
import { queueRun } from '../../runs/queue-run.js';
import { runMessageSchema } from '../../runs/run-message.js';
import { answer, type ChatAnswer, type ChatDeps, type ChatTurn } from './turn-context.js';

const USAGE =
  'Usage: /workflow list | run <name> [message] | status | cancel <id> | resume <id> | abandon <id> | approve <id> [comment] | reject <id> [reason]';

/** The directory the conversation works in: its override, else its codebase's checkout. */
export async function projectCwd(deps: ChatDeps, turn: ChatTurn): Promise<string | undefined> {
  if (turn.conversation.cwd) return turn.conversation.cwd;
  if (!turn.conversation.codebase_id) return undefined;
  return (await deps.store.getCodebase(turn.conversation.codebase_id))?.default_cwd;
}

/** Runs dispatched from this conversation (or attached to it) that have not ended. */
export async function openRunsOf(deps: ChatDeps, platformId: string): Promise<Run[]> {
  return deps.store.listOpenRunsOf(platformId);
}

async function listWorkflows(deps: ChatDeps, turn: ChatTurn): Promise<ChatAnswer> {
  const { workflows } = await deps.catalog.listAsync({ cwd: await projectCwd(deps, turn) });
  if (workflows.length === 0) return answer('No workflows found.');
  const lines = workflows.map((w) => `- **${w.workflow.name}** (${w.source}) — ${w.workflow.description.split('\n')[0]}`);
  return answer(['Workflows:', ...lines, '', 'Start one with /workflow run <name> [message].'].join('\n'));
}

/** Where a dispatched run works: a project directory and its codebase (none: no project). */
export interface DispatchTarget {
  cwd: string | undefined;
  codebaseId: string | null;
}

/** `/workflow run`: queues the run on a hidden worker conversation, as the run route does. */
async function runWorkflow(deps: ChatDeps, turn: ChatTurn, name: string | undefined, message: string): Promise<ChatAnswer> {
  if (!name) return answer('Usage: /workflow run <name> [message]');
  return dispatchWorkflow(deps, turn, name, message, { cwd: await projectCwd(deps, turn), codebaseId: turn.conversation.codebase_id });
}

/**
 * Queues a background run of a workflow for the chat (`/workflow run`, and the assistant's
 * `/invoke-workflow`): a hidden worker conversation, the dispatch message and the
 * `workflow_dispatch` frame; the result is posted to this conversation when the run ends.
 */
export async function dispatchWorkflow(deps: ChatDeps, turn: ChatTurn, name: string, message: string, target: DispatchTarget): Promise<ChatAnswer> {
  const { cwd } = target;
  // The run route's check of a run's message: it reaches a process ($ARGUMENTS), so a NUL byte is
  // refused rather than queued to fail.
  const checked = runMessageSchema.safeParse(message);
  if (!checked.success) return answer(`Cannot run workflow '${name}': ${checked.error.issues.map((issue) => issue.message).join('; ')}`);
  let run: Run;
  try {
    const entry = await deps.catalog.getAsync(name, { cwd });
    const inputs = resolveRunInputs(entry.workflow.name, entry.workflow.inputs, undefined);
    run = await queueRun(deps.store, {
      entry,
      inputs,
      message,
      workingPath: cwd ?? null,
      workerIdForm: 'web-worker',
      parentConversationId: turn.conversation.platform_conversation_id,
      codebaseId: target.codebaseId,
      userId: turn.userId ?? null,
      clock: deps.clock,
    });
  } catch (err) {
    if (err instanceof CairnError && err.code !== 'STORE_UNAVAILABLE') return answer(`Cannot run workflow '${name}': ${err.message}`);
    throw err;
  }
  const dispatch = { workerConversationId: run.conversation_id, workflowName: run.workflow_name, runId: run.id };
  // A run its workflow's `concurrency:` holds back says so: it starts once a place is free.
  const waiting = run.metadata.concurrency?.waiting_for;
  const queued = waiting ? `; it waits for a place of concurrency key ${JSON.stringify(run.metadata.concurrency!.key)}, behind ${waiting.join(', ')}` : '';
  return answer(`🚀 Dispatching workflow: **${run.workflow_name}** (background)${queued}`, {
    metadata: { category: 'workflow_dispatch_status', workflowDispatch: dispatch },
    events: [{ event_type: 'workflow_dispatch', data: { workerConversationId: run.conversation_id, workflowName: run.workflow_name } }],
  });
}

async function status(deps: ChatDeps, turn: ChatTurn): Promise<ChatAnswer> {
  const runs = await openRunsOf(deps, turn.conversation.platform_conversation_id);
  if (runs.length === 0) return answer('No workflows running for this conversation.');
  return answer(['Workflows of this conversation:', ...runs.map((r) => `- ${r.id} **${r.workflow_name}** — ${r.status}`)].join('\n'));
}

/** The run a command names, or the answer saying it does not exist. */
async function runNamed(deps: ChatDeps, verb: string, runId: string | undefined): Promise<Run | ChatAnswer> {
  if (!runId) return answer(`Usage: /workflow ${verb} <run id>`);
  return (await deps.store.getRun(runId)) ?? answer(`${runErrorText.notFound}: ${runId}`);
}

const isAnswer = (value: Run | ChatAnswer): value is ChatAnswer => 'persist' in value;

async function cancel(deps: ChatDeps, runId: string | undefined): Promise<ChatAnswer> {
  const run = await runNamed(deps, 'cancel', runId);
  if (isAnswer(run)) return run;
  if (terminalRunStatuses.includes(run.status)) return answer(runErrorText.cannotCancel(run.status));
  await deps.store.enqueueJob('cancel_run', run.id);
  return answer(`Cancelling workflow run ${run.id} (**${run.workflow_name}**).`);
}

/**
 * `/workflow resume <id> [--reload]`: queued for the supervisor. The run executes its own copy of
 * its files; `--reload` takes the workflow's file, command files and scripts as they are now.
 */
async function resume(deps: ChatDeps, runId: string | undefined, options: readonly string[]): Promise<ChatAnswer> {
  if (options.some((o) => o !== '--reload')) return answer('Usage: /workflow resume <run id> [--reload]');
  const reload = options.includes('--reload');
  const run = await runNamed(deps, 'resume', runId);
  if (isAnswer(run)) return run;
  if (!resumableRunStatuses.includes(run.status)) return answer(runErrorText.cannotResume(run.status));
  let definition: unknown;
  try {
    if (reload) definition = await reloadedDefinition(deps.store, (name, query) => deps.catalog.getAsync(name, query), run);
  } catch (err) {
    if (err instanceof CairnError && err.code !== 'STORE_UNAVAILABLE') return answer(`Cannot resume workflow run ${run.id}: ${err.message}`);
    throw err;
  }
  try {
    await requestResume(deps.store, run.id, reload ? { definition, reload: true } : {});
  } catch (err) {
    if (err instanceof CairnError && err.code !== 'STORE_UNAVAILABLE') return answer(err.message);
    throw err;
  }
  return answer(`Resuming workflow run ${run.id} (**${run.workflow_name}**): nodes that already succeeded are not run again.`);
}

/** `/workflow abandon <id>`: the run ends cancelled, its running nodes stopped first. */
async function abandon(deps: ChatDeps, runId: string | undefined): Promise<ChatAnswer> {
  const run = await runNamed(deps, 'abandon', runId);
  if (isAnswer(run)) return run;
  if (!abandonableRunStatuses.includes(run.status)) return answer(runErrorText.cannotAbandon(run.status));
  await deps.store.enqueueJob('abandon_run', run.id);
  return answer(`Abandoning workflow run ${run.id} (**${run.workflow_name}**): it ends cancelled.`);
}

/** `/workflow approve|reject <id> [text]`: the answer to the gate the run waits at. */
async function answerGate(deps: ChatDeps, verb: GateVerb, runId: string | undefined, text: string): Promise<ChatAnswer> {
  if (!runId) return answer(`Usage: /workflow ${verb} <run id> [${verb === 'approve' ? 'comment' : 'reason'}]`);
  const payload = text === '' ? {} : verb === 'approve' ? { comment: text } : { reason: text };
  try {
    const { run, gate } = await requestGateAnswer(deps.store, runId, verb, payload);
    return answer(`${verb === 'approve' ? 'Approved' : 'Rejected'} gate '${gate}' of workflow run ${run.id} (**${run.workflow_name}**).`);
  } catch (err) {
    if (err instanceof CairnError && err.code !== 'STORE_UNAVAILABLE') return answer(err.message);
    throw err;
  }
}

/** `/workflow …`. `rest` is the text after the subcommand (the run's message). */
export async function workflowCommand(deps: ChatDeps, turn: ChatTurn, args: string[], rest: string): Promise<ChatAnswer> {
  const [sub, first] = args;
  switch (sub) {
    case 'list':
    case 'ls':
      return listWorkflows(deps, turn);
    case 'run':
      return runWorkflow(deps, turn, first, rest.replace(/^\S+\s+\S+\s*/, ''));
    case 'status':
      return status(deps, turn);
    case 'cancel':
      return cancel(deps, first);
    case 'resume':
      return resume(deps, first, args.slice(2));
    case 'abandon':
      return abandon(deps, first);
    case 'approve':
    case 'reject':
      return answerGate(deps, sub, first, rest.replace(/^\S+\s+\S+\s*/, ''));
    default:
      return answer(USAGE);
  }
}
