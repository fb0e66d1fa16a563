import { runAbandonResponseSchema, runOperationResponseSchema } from '../../wire/runs.js';
import { expectPositionals, parseCommandArgs } from '../args.js';
import { writeLine } from '../../terminal/context.js';
import { runPath } from '../run-detail-pages.js';
import { MIN_RUN_ID_PREFIX, resolveRunId } from '../run-id.js';
import { printHelp, printJson, serverOptionsHelp, type Command } from './command.js';
import { usageError } from '../../terminal/cli-error.js';
import { clientFor, urlOption } from './server-flags.js';
import type { ApiClient } from '../api-client.js';
import type { ErrorSubject } from '../error-hints.js';
import { waitingAdvice } from '../concurrency-wait.js';
import type { CliContext } from '../../terminal/context.js';

const idHelp = `<id> is the whole run id or its first ${MIN_RUN_ID_PREFIX} or more characters, as for \`cairn run get\`.`;

/** A request of one run operation: its method and path, and the body a resume may take. */
interface OperationRequest {
  method: 'POST' | 'DELETE';
  path: string;
  body?: Record<string, unknown>;
}

/**
 * One run operation: resolve the id (prefixes too), send the request, print the server's message.
 * `resume`: the command takes `--budget-usd <n>` (a positive number) and `--reload`, and passes them to `send`.
 */
function operation(
  name: string,
  summary: string,
  help: string,
  send: (id: string, resume: { budgetUsd?: number; reload: boolean }) => OperationRequest,
  opts: {
    resume?: boolean;
    /** What a refusal is about (its hint names the next command). */
    subject?: (id: string) => ErrorSubject;
    /** Prints more after the server's message (not with --json). */
    after?: (ctx: CliContext, client: ApiClient, id: string) => Promise<void>;
  } = {},
): Command {
  return {
    name,
    summary,
    help,
    async run(argv, ctx) {
      const { values, positionals } = parseCommandArgs(this.name, argv, {
        json: { type: 'boolean' },
        ...(opts.resume ? { 'budget-usd': { type: 'string' as const }, reload: { type: 'boolean' as const } } : {}),
        ...urlOption,
      });
      if (values.help) return printHelp(ctx, this.help);
      const [given] = expectPositionals(this.name, positionals, ['id']) as [string];
      const budgetUsd = parseBudget(this.name, values['budget-usd']);
      const client = clientFor(ctx, values.url);
      const id = await resolveRunId(client, given, this.name);
      const { method, path, body: requestBody } = send(id, { ...(budgetUsd !== undefined ? { budgetUsd } : {}), reload: values.reload === true });
      const schema = name === 'run abandon' ? runAbandonResponseSchema : runOperationResponseSchema;
      const subject = opts.subject?.(id);
      const { raw, body } = await client.request(method, path, schema, { ...(requestBody ? { body: requestBody } : {}), ...(subject ? { subject } : {}) });
      if (values.json) return printJson(ctx, raw);
      writeLine(ctx.stdout, body.message);
      await opts.after?.(ctx, client, id);
      return 0;
    },
  };
}

/** `--budget-usd`: a positive number of US dollars, or a usage error naming what was given. */
function parseBudget(command: string, raw: unknown): number | undefined {
  if (raw === undefined) return undefined;
  const value = typeof raw === 'string' && /^\s*\d*\.?\d+\s*$/.test(raw) ? Number(raw) : NaN;
  if (!(value > 0)) throw usageError(`--budget-usd must be a positive number of US dollars, such as 5 or 0.5, not '${String(raw)}'`, command);
  return value;
}

const options = `Options:
  --json             print the server's JSON response
${serverOptionsHelp}`;

export const runResumeCommand = operation(
  'run resume',
  'continue a failed or paused run, skipping the nodes that already succeeded',
  `Usage: cairn run resume <id> [--reload] [--budget-usd <n>] [--json] [--url <url>]

Continue a failed or paused run under the same id. Nodes that already succeeded are not run
again (their output is reused); always_run nodes, nodes whose dependency ran again with another
output, and the failed and skipped nodes run. The run executes its own copy of the workflow, its
command files and its scripts, taken when it started: edits on disk do not apply unless --reload
takes them as they are now. The inputs of the first start are reused. ${idHelp}

A run paused by its USD budget resumes with the same budget (and pauses again before its next AI
attempt) unless --budget-usd raises it. A child run paused by the budget of a run above it is
resumed through that run: resume the run the pause names.

Options:
  --reload           take the workflow file, command files and scripts as they are on disk now
  --budget-usd <n>   a run paused by its own budget: its new budget, in US dollars
${options.slice('Options:\n'.length)}`,
  (id, { budgetUsd, reload }) => {
    const body = { ...(budgetUsd !== undefined ? { budgetUsd } : {}), ...(reload ? { reload: true } : {}) };
    return { method: 'POST', path: `${runPath(id)}/resume`, ...(Object.keys(body).length ? { body } : {}) };
  },
  {
    resume: true,
    subject: (id) => ({ resumedRun: id }),
    // A failed run asks its concurrency key for a place again: when it waits, say for whom and what next.
    async after(ctx, client, id) {
      for (const line of await waitingAdvice(client, id)) writeLine(ctx.stdout, line);
    },
  },
);

export const runAbandonCommand = operation(
  'run abandon',
  'end a running, paused or failed run for good (it becomes cancelled)',
  `Usage: cairn run abandon <id> [--json] [--url <url>]

End a run that is running, paused or failed: its running nodes are stopped (their whole process
group is killed) and the run ends as cancelled, so it can no longer be resumed. ${idHelp}

${options}`,
  (id) => ({ method: 'POST', path: `${runPath(id)}/abandon` }),
);

export const runDeleteCommand = operation(
  'run delete',
  'delete a finished run, its events and its artifacts',
  `Usage: cairn run delete <id> [--json] [--url <url>]

Delete a completed, failed or cancelled run: the run, its events and its folder under the Cairn
home (scratch directory and artifacts). A project directory the run worked in is not touched. A
run that is still pending, running or paused is refused: cancel it first. ${idHelp}

${options}`,
  (id) => ({ method: 'DELETE', path: runPath(id) }),
);
