import { runStatusSchema } from '../../store/schemas/run.js';
import { runListResponseSchema, runOperationResponseSchema, type RunEventView, type WorkflowRun } from '../../wire/runs.js';
import { expectPositionals, parseCommandArgs, parsePositiveInt } from '../args.js';
import { usageError } from '../../terminal/cli-error.js';
import { isColorWanted, writeLine, type CliContext } from '../../terminal/context.js';
import { createStyle, firstLine, formatDuration, formatSpan, formatTable, formatTimestamp, type Style } from '../../terminal/format.js';
import { createNodeSummary, describeNodeDetail, describeToolCalls } from '../node-summary.js';
import { readRunDetailPages, runPath } from '../run-detail-pages.js';
import { waitingLine } from '../concurrency-wait.js';
import { MIN_RUN_ID_PREFIX, resolveRunId } from '../run-id.js';
import { printHelp, printJson, serverOptionsHelp, type Command } from './command.js';
import { clientFor, urlOption } from './server-flags.js';

const statuses = runStatusSchema.options;

function colourStatus(status: string, style: Style): string {
  if (status === 'completed') return style.green(status);
  if (status === 'failed' || status === 'cancelled') return style.red(status);
  if (status === 'paused' || status === 'interrupted' || status === 'suspended') return style.yellow(status);
  return style.cyan(status);
}

export const runListCommand: Command = {
  name: 'run list',
  summary: 'list recent workflow runs',
  help: `Usage: cairn run list [--status <status>] [--limit <n>] [--json] [--url <url>]

List workflow runs, newest first.

Options:
  --status <status>  only runs in this status: ${statuses.join(', ')}
  --limit <n>        at most n runs (the server's default is 50)
  --json             print the server's JSON response
${serverOptionsHelp}`,
  async run(argv, ctx) {
    const { values, positionals } = parseCommandArgs(this.name, argv, {
      status: { type: 'string' },
      limit: { type: 'string' },
      json: { type: 'boolean' },
      ...urlOption,
    });
    if (values.help) return printHelp(ctx, this.help);
    expectPositionals(this.name, positionals, []);
    if (values.status !== undefined && !(statuses as readonly string[]).includes(values.status)) {
      throw usageError(`--status must be one of ${statuses.join(', ')}; got '${values.status}'.`, this.name);
    }
    const limit = parsePositiveInt(this.name, 'limit', values.limit);
    const query = new URLSearchParams();
    if (values.status) query.set('status', values.status);
    if (limit !== undefined) query.set('limit', String(limit));
    const qs = query.size > 0 ? `?${query}` : '';
    const { raw, body } = await clientFor(ctx, values.url).request('GET', `/api/workflows/runs${qs}`, runListResponseSchema);
    if (values.json) return printJson(ctx, raw);
    if (body.runs.length === 0) {
      writeLine(ctx.stdout, values.status ? `No ${values.status} runs.` : 'No runs yet. Start one with `cairn workflow run <name>`.');
      return 0;
    }
    const style = createStyle(isColorWanted(ctx.stdout, ctx.env));
    const rows = body.runs.map((run) => [
      run.id,
      run.workflow_name,
      colourStatus(run.status, style),
      formatTimestamp(run.started_at ?? run.created_at),
      formatSpan(run.started_at, run.completed_at),
      firstLine(run.error, 60),
    ]);
    for (const line of formatTable(['RUN', 'WORKFLOW', 'STATUS', 'STARTED', 'DURATION', 'ERROR'], rows, style)) writeLine(ctx.stdout, line);
    return 0;
  },
};

function printRun(ctx: CliContext, run: WorkflowRun, style: Style): void {
  const fields: [string, string | null | undefined][] = [
    ['Run', run.id],
    ['Workflow', run.workflow_name],
    ['Status', colourStatus(run.status, style)],
    ['Created', formatTimestamp(run.created_at)],
    ['Started', formatTimestamp(run.started_at)],
    ['Finished', formatTimestamp(run.completed_at)],
    ['Duration', formatSpan(run.started_at, run.completed_at)],
    ['Directory', run.working_path],
    ['Base', baseLine(run)],
    ['Message', run.user_message ? firstLine(run.user_message, 100) : undefined],
    ['Waiting', run.status === 'pending' ? waitingLine(run) : undefined],
    ['Paused', run.status === 'paused' ? style.yellow(pausedReason(run)) : undefined],
    ['Error', run.error ? style.red(run.error) : undefined],
    ['Resumes', run.status === 'failed' ? autoResumeLine(run) : undefined],
    ['Cost', costLine(run)],
    ['Budget', run.metadata.budget ? usd(run.metadata.budget.usd) : undefined],
    ['Tokens', run.metadata.total_tokens_in !== undefined ? `${run.metadata.total_tokens_in} in, ${run.metadata.total_tokens_out ?? 0} out` : undefined],
  ];
  for (const [label, value] of fields) if (value) writeLine(ctx.stdout, `${style.bold(label.padEnd(10))}${value}`);
}

/** The run's $BASE_BRANCH and where it came from, as recorded when it first started. */
function baseLine(run: WorkflowRun): string | undefined {
  const base = run.metadata.base_branch;
  if (!base) return undefined;
  const from: Record<string, string> = {
    request: '--base',
    project_config: 'worktree.baseBranch',
    codebase: 'the codebase’s default branch',
    origin_head: 'origin/HEAD',
    main: 'the repository’s main',
    master: 'the repository’s master',
  };
  return `${base.name} (from ${from[base.source] ?? base.source})`;
}

/** A failed run waiting out a provider's usage limit: when it resumes by itself. */
function autoResumeLine(run: WorkflowRun): string | undefined {
  const auto = run.metadata.auto_resume;
  if (!auto) return undefined;
  return `by itself at ${formatTimestamp(auto.at)}, once the usage limit of ${auto.nodes.join(', ')} resets (automatic resume ${auto.resume} of ${auto.of}; cairn run resume ${run.id} goes on now)`;
}

function usd(value: number): string {
  return `$${value.toFixed(4)}`;
}

/** Why a paused run waits: its budget, else the gate or child run it is blocked at. */
function pausedReason(run: WorkflowRun): string {
  const budget = run.metadata.budget_pause;
  if (budget) return `${budget.reason} (cairn run resume ${budget.budget_run_id ?? run.id} --budget-usd <usd> goes on)`;
  const message = run.metadata.approval?.message;
  return typeof message === 'string' ? message : 'waiting';
}

/**
 * What the run spent, as providers reported it: its own attempts, and with child runs under its
 * budget what they spent too (their sum is what its budget is checked against).
 */
function costLine(run: WorkflowRun): string | undefined {
  const own = run.metadata.total_cost_usd;
  const children = run.metadata.descendants_cost_usd;
  if (children === undefined) return own === undefined ? undefined : usd(own);
  return `${usd((own ?? 0) + children)} (its own ${usd(own ?? 0)}, its child runs ${usd(children)})`;
}

/** One row of the `--events` table: all `run get` keeps of an event once its page is read. */
function eventRow(event: RunEventView): string[] {
  return [String(event.seq), formatTimestamp(event.created_at), event.event_type, event.step_name ?? ''];
}

export const runGetCommand: Command = {
  name: 'run get',
  summary: 'show one run and what each of its nodes did',
  help: `Usage: cairn run get <id> [--events] [--json] [--url <url>]

Show a run: its status, timing, error or why it is paused (or, failed on a provider's usage
limit, when it resumes by itself; or, pending under its workflow's concurrency policy, the key
it waits for a place of, its number in line and the runs holding the places), what it cost (its child runs under its
budget included) and its budget, and one line per node (status, duration, error or skip reason,
and for a node that called tools, an AI node, how many calls and of them how many failed or were
refused: \`3 tool calls (1 failed, 1 refused)\`) derived from the run's event log. The log is
read page by page, however long it is.
A node's status is queued (waiting for a slot of its AI provider or of the global limit, with its
place in line), running, suspended (at a gate or a wait), completed, failed, cancelled (by a
cancel of the run), interrupted (cut short by a server stop; it runs again when the run
continues), skipped or cached. <id> is
the whole run id or its first ${MIN_RUN_ID_PREFIX} or more characters, when only one recent run starts so.

Options:
  --events           also list every event of the run
  --json             print the server's JSON ({ run, events, nextAfterSeq }) with every event
                     of every page in one events array
${serverOptionsHelp}`,
  async run(argv, ctx) {
    const { values, positionals } = parseCommandArgs(this.name, argv, {
      events: { type: 'boolean' },
      json: { type: 'boolean' },
      ...urlOption,
    });
    if (values.help) return printHelp(ctx, this.help);
    const [given] = expectPositionals(this.name, positionals, ['id']) as [string];
    const client = clientFor(ctx, values.url);
    const id = await resolveRunId(client, given, this.name);
    // The run as the last page shows it (the freshest status), with what every page held.
    let last: { raw: unknown; run: WorkflowRun } | undefined;
    const rawEvents: unknown[] = [];
    const nodes = createNodeSummary();
    const eventRows: string[][] = [];
    for await (const page of readRunDetailPages(client, id)) {
      last = { raw: page.raw, run: page.body.run };
      if (values.json) rawEvents.push(...(page.raw as { events: unknown[] }).events);
      nodes.add(page.body.events);
      if (values.events) eventRows.push(...page.body.events.map(eventRow));
    }
    if (!last) throw new Error('readRunDetailPages ended without a page');
    if (values.json) return printJson(ctx, { ...(last.raw as object), events: rawEvents, nextAfterSeq: null });
    const style = createStyle(isColorWanted(ctx.stdout, ctx.env));
    printRun(ctx, last.run, style);
    const summaries = nodes.nodes();
    writeLine(ctx.stdout);
    if (summaries.length === 0) writeLine(ctx.stdout, 'No node has started yet.');
    // The TOOLS column only when a node called tools (AI nodes do).
    const withTools = summaries.some((n) => n.tools);
    const rows = summaries.map((n) => [
      n.node,
      colourStatus(n.status, style),
      n.durationMs !== undefined ? formatDuration(n.durationMs) : '',
      ...(withTools ? [describeToolCalls(n.tools)] : []),
      firstLine(describeNodeDetail(n), 100),
    ]);
    const headers = ['NODE', 'STATUS', 'DURATION', ...(withTools ? ['TOOLS'] : []), 'DETAIL'];
    if (rows.length) for (const line of formatTable(headers, rows, style)) writeLine(ctx.stdout, line);
    if (values.events) {
      writeLine(ctx.stdout);
      for (const line of formatTable(['SEQ', 'TIME', 'EVENT', 'NODE'], eventRows, style)) writeLine(ctx.stdout, line);
    }
    return 0;
  },
};

export const runCancelCommand: Command = {
  name: 'run cancel',
  summary: 'cancel a pending, running or paused run',
  help: `Usage: cairn run cancel <id> [--url <url>]

Ask the server to cancel a run. Its running nodes are stopped (their whole process group is
killed) and the run ends as cancelled. <id> is the whole run id or its first ${MIN_RUN_ID_PREFIX} or more
characters, as for \`cairn run get\`.

Options:
${serverOptionsHelp}`,
  async run(argv, ctx) {
    const { values, positionals } = parseCommandArgs(this.name, argv, { ...urlOption });
    if (values.help) return printHelp(ctx, this.help);
    const [given] = expectPositionals(this.name, positionals, ['id']) as [string];
    const client = clientFor(ctx, values.url);
    const id = await resolveRunId(client, given, this.name);
    const { body } = await client.request('POST', `${runPath(id)}/cancel`, runOperationResponseSchema);
    writeLine(ctx.stdout, body.message);
    return 0;
  },
};
