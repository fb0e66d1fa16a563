import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import type { ApiClient } from '../api-client.js';
import { dryRunTraceSchema } from '../../wire/dry-run.js';
import { runStartResponseSchema } from '../../wire/run-request.js';
import { runOperationResponseSchema } from '../../wire/runs.js';
import { expectPositionals, parseCommandArgs, parseInputs } from '../args.js';
import { CliError, EXIT_INTERRUPTED, usageError } from '../../terminal/cli-error.js';
import { isColorWanted, writeLine, type CliContext } from '../../terminal/context.js';
import { createStyle } from '../../terminal/format.js';
import type { ActivityDetail } from '../agent-activity-lines.js';
import { dryRunLines } from '../dry-run-lines.js';
import { followRun, reportFollowEnd } from '../run-follow.js';
import { waitingLineOf } from '../concurrency-wait.js';
import { outputModes, type OutputMode } from '../run-output.js';
import { printHelp, serverOptionsHelp, type Command } from './command.js';
import { clientFor, urlOption } from './server-flags.js';

/** A fresh conversation id for one CLI run: `cli-<ms>-<6 chars>`, like the web UI's `web-…` ids. */
export function newConversationId(now: number = Date.now()): string {
  const suffix = [...randomBytes(6)].map((b) => (b % 36).toString(36)).join('');
  return `cli-${now}-${suffix}`;
}

/** After Ctrl-C: asks the server to cancel the run and says so. A second Ctrl-C stops waiting. */
async function cancelAfterInterrupt(ctx: CliContext, client: ApiClient, runId: string, signal: AbortSignal): Promise<number> {
  writeLine(ctx.stderr, `Interrupted: cancelling run ${runId}…`);
  try {
    const { body } = await client.request('POST', `/api/workflows/runs/${encodeURIComponent(runId)}/cancel`, runOperationResponseSchema, {
      signal,
    });
    writeLine(ctx.stderr, body.message);
  } catch (err) {
    const reason = err instanceof CliError ? err.message : 'interrupted again before the server answered';
    writeLine(ctx.stderr, `Could not cancel run ${runId}: ${reason}`);
  }
  writeLine(ctx.stderr, `Inspect it with: cairn run get ${runId}`);
  return EXIT_INTERRUPTED;
}

function parseOutputMode(command: string, raw: string | undefined): OutputMode {
  if (raw === undefined) return 'last';
  if ((outputModes as readonly string[]).includes(raw)) return raw as OutputMode;
  throw usageError(`--output must be one of ${outputModes.join(', ')}, not '${raw}'`, command);
}

export const workflowRunCommand: Command = {
  name: 'workflow run',
  summary: 'run a workflow and follow its nodes live',
  help: `Usage: cairn workflow run <name> [--input key=value ...] [--message <text>] [--cwd <dir> | --codebase <id>] [--branch <name>] [--base <branch>] [--output last|all|none] [--quiet | --verbose] [--dry-run] [--json] [--url <url>]

Start a run of a workflow on the server and show its nodes as they start and finish. The
workflow is looked up in the project (<cwd>/.cairn/workflows), then $CAIRN_HOME/workflows, then
the bundled ones. When the directory is a registered codebase's checkout (\`cairn codebase add\`),
or --codebase names one, the run works in a git worktree of its own on a branch of its own.
Ctrl-C cancels the run.

Options:
  --input key=value  a value for one of the workflow's inputs; repeat for several
  --message <text>   the task text ($ARGUMENTS / $USER_MESSAGE in the workflow)
  --cwd <dir>        the project directory to run in (default: the current directory)
  --codebase <id>    run on this registered codebase (owner/repo) from any directory
  --branch <name>    the branch of the run's worktree (default: cairn/<workflow>-<run id>)
  --base <branch>    the run's base branch ($BASE_BRANCH), where its worktree's new branch is
                     cut from; a branch of the repository, local or origin/<branch> (default:
                     worktree.baseBranch in .cairn/config.yaml, else the repository's default)
  --output <which>   when the run completes, print the output of the node that finished last
                     (last, the default), of every completed node (all), or nothing (none)
  --quiet            show the nodes only, not what their agents do
  --verbose          show the agents' full text and thinking, not one shortened line
  --dry-run          start nothing: walk the workflow with stubs and print what a run would do
                     with each node (run, skip and why, the provider and model it would call,
                     its text with the inputs filled in); nothing runs, is spent or is created
  --json             print the server's JSON: the start response, then one stream event per line
                     (with --dry-run: the trace, one JSON object)
${serverOptionsHelp}

While an AI node works, its agent's tool calls are shown one line each when they finish (tool,
what it was called on, ok / error / refused, and how long it took), and its text as one shortened
line when it moves on. A node whose every tool call was refused ends with a warning.

When the run pauses at an approval gate, the command prints the gate's message and the exact
\`cairn run approve\` / \`cairn run reject\` commands that answer it (on the child run whose gate
it is, when the run waits on a child run). Run from a terminal (stdin
is a TTY), it then waits for the answer (given from another terminal or the web UI) and goes on
following the run; otherwise it exits (the run stays paused, costing nothing, until answered;
\`cairn run follow <id>\` shows it again from there).
When the run pauses on its USD budget, it prints the \`cairn run resume <id> --budget-usd <usd>\`
that raises the budget (naming the run whose budget it is) in place of the answers.

With --dry-run, the inputs, codebase and branches are checked as for a run. AI nodes yield
<dry-run output of ID>, approvals are taken as approved, loops walk one iteration, and a when:
that reads such an output is reported as depending on a runtime value (maybe).

Exit status: 0 when the run completes, 1 when it fails or is cancelled, 2 on a usage error,
3 when the run paused (at a gate, or on its budget; stdin not a terminal), 130 when interrupted
with Ctrl-C (the run is cancelled). With --dry-run: 0, or 1 when a node would fail.`,
  async run(argv, ctx) {
    const { values, positionals } = parseCommandArgs(this.name, argv, {
      input: { type: 'string', multiple: true },
      message: { type: 'string' },
      cwd: { type: 'string' },
      codebase: { type: 'string' },
      branch: { type: 'string' },
      base: { type: 'string' },
      json: { type: 'boolean' },
      output: { type: 'string' },
      quiet: { type: 'boolean' },
      verbose: { type: 'boolean' },
      'dry-run': { type: 'boolean' },
      ...urlOption,
    });
    if (values.help) return printHelp(ctx, this.help);
    const [name] = expectPositionals(this.name, positionals, ['name']) as [string];
    const inputs = parseInputs(this.name, values.input ?? []);
    const cwd = resolve(ctx.cwd, values.cwd ?? '.');
    const json = values.json === true;
    const outputMode = parseOutputMode(this.name, values.output);
    if (values.quiet === true && values.verbose === true) throw usageError('--quiet and --verbose cannot be used together: pick one', this.name);
    const activity: ActivityDetail = values.quiet === true ? 'quiet' : values.verbose === true ? 'verbose' : 'normal';
    const style = createStyle(isColorWanted(ctx.stdout, ctx.env));
    const client = clientFor(ctx, values.url);

    const dryRun = values['dry-run'] === true;
    if (dryRun && (values.output !== undefined || values.quiet === true || values.verbose === true)) {
      throw usageError('--dry-run follows no run: drop --output, --quiet and --verbose', this.name);
    }
    const body = {
      ...(dryRun ? {} : { conversationId: newConversationId() }),
      inputs,
      ...(values.message !== undefined ? { message: values.message } : {}),
      ...(values.codebase !== undefined ? { codebaseId: values.codebase } : {}),
      ...(values.branch !== undefined ? { branch: values.branch } : {}),
      ...(values.base !== undefined ? { baseBranch: values.base } : {}),
    };
    // --codebase alone runs on the codebase from anywhere: the current directory is not sent.
    const query = values.codebase !== undefined && values.cwd === undefined ? '' : `?cwd=${encodeURIComponent(cwd)}`;
    if (dryRun) {
      const path = `/api/workflows/${encodeURIComponent(name)}/dry-run${query}`;
      const { body: trace, raw } = await client.request('POST', path, dryRunTraceSchema, { body, subject: { workflow: name, isRunStart: true } });
      if (json) writeLine(ctx.stdout, JSON.stringify(raw));
      else for (const line of dryRunLines(trace, style)) writeLine(ctx.stdout, line);
      return trace.counts.fail > 0 ? 1 : 0;
    }
    const path = `/api/workflows/${encodeURIComponent(name)}/run${query}`;
    const started = await client.request('POST', path, runStartResponseSchema, { body, subject: { workflow: name, isRunStart: true } });
    const { runId } = started.body;
    const startedAt = Date.now();
    if (json) writeLine(ctx.stdout, JSON.stringify(started.raw));
    else {
      writeLine(ctx.stdout, `Run ${style.bold(runId)} of workflow ${style.bold(name)} started.`);
      // Held back by its workflow's concurrency policy: say for what, before following it.
      const waiting = await waitingLineOf(client, runId);
      if (waiting) writeLine(ctx.stdout, style.yellow(`Waiting ${waiting}.`));
    }

    // Run from a terminal, the command waits at a paused gate for its answer (given from another
    // terminal or the web UI) and follows the run on; otherwise it exits with EXIT_PAUSED.
    const waitAtGates = ctx.stdinIsTTY === true;
    const result = await followRun(ctx, client, runId, {
      json, style, waitAtGates, activity,
      whileWaiting: 'Waiting for the run to go on (Ctrl-C cancels the run).',
      from: { conversationId: started.body.conversationId },
    });
    if (result.interrupted) {
      // A second Ctrl-C while the cancel request is in flight stops waiting for it.
      const cancelController = new AbortController();
      const remove = ctx.onInterrupt(() => cancelController.abort());
      try {
        return await cancelAfterInterrupt(ctx, client, runId, cancelController.signal);
      } finally {
        remove();
      }
    }
    return reportFollowEnd(ctx, client, runId, result, { json, style, outputMode, took: () => Date.now() - startedAt });
  },
};
