import { overlapPolicySchema } from '../../shared/overlap-policy.js';
import { catchUpMsOf, catchUpText } from '../../workflow/triggers/catch-up.js';
import { cronProblem } from '../../workflow/triggers/cron-times.js';
import {
  runNowResponseSchema, scheduleDeleteResponseSchema, scheduleListResponseSchema, scheduleNameSchema, scheduleViewSchema, type ScheduleView,
} from '../../wire/schedules.js';
import { usageError } from '../../terminal/cli-error.js';
import { writeLine } from '../../terminal/context.js';
import { formatTable } from '../../terminal/format.js';
import { expectPositionals, parseCommandArgs, parseInputs } from '../args.js';
import { printHelp, printJson, serverOptionsHelp, type Command } from './command.js';
import { clientFor, urlOption } from './server-flags.js';

const jsonOption = `  --json             print the server's JSON response
${serverOptionsHelp}`;

/** Declared schedules are named `<workflow>#<n>` (and `<codebase>:` before it): one path segment, encoded. */
const schedulePath = (idOrName: string, action = '') => `/api/schedules/${encodeURIComponent(idOrName)}${action}`;

const nextLine = (s: ScheduleView) => (s.paused ? 'paused' : (s.next_fire_times[0] ?? 'none'));

export const scheduleListCommand: Command = {
  name: 'schedule list',
  summary: 'list the schedules and when each fires next',
  help: `Usage: cairn schedule list [--json] [--url <url>]

List the schedules: name, workflow, cron expression and time zone, overlap policy, and the next
due time (or paused). Schedules a workflow declares in its triggers: are listed with
origin workflow and named <workflow>#<n>.

Options:
${jsonOption}`,
  async run(argv, ctx) {
    const { values, positionals } = parseCommandArgs(this.name, argv, { json: { type: 'boolean' }, ...urlOption });
    if (values.help) return printHelp(ctx, this.help);
    expectPositionals(this.name, positionals, []);
    const { raw, body } = await clientFor(ctx, values.url).request('GET', '/api/schedules', scheduleListResponseSchema);
    if (values.json) return printJson(ctx, raw);
    if (body.schedules.length === 0) {
      writeLine(ctx.stdout, 'No schedules yet. Add one with `cairn schedule add <name> --workflow <name> --cron <expr>`.');
      return 0;
    }
    const rows = body.schedules.map((s) => [s.name, s.workflow_name, `${s.cron} (${s.timezone})`, s.overlap, s.origin, nextLine(s)]);
    for (const line of formatTable(['NAME', 'WORKFLOW', 'CRON', 'OVERLAP', 'ORIGIN', 'NEXT'], rows)) writeLine(ctx.stdout, line);
    return 0;
  },
};

export const scheduleAddCommand: Command = {
  name: 'schedule add',
  summary: 'add a schedule: a workflow run on a cron expression in a time zone',
  help: `Usage: cairn schedule add <name> --workflow <name> --cron <expr> [--timezone <zone>] [--input key=value ...] [--codebase <id>] [--overlap <policy>] [--catch-up <duration>] [--paused] [--json] [--url <url>]

Add a schedule. The supervisor starts a run of the workflow at each due time of the cron
expression, read in the time zone's wall-clock time (docs/schedules.md says what happens on
daylight-saving days). The workflow and its inputs are checked now, as \`cairn workflow run\`
checks them.

Options:
  --workflow <name>     the workflow to run (with --codebase, the codebase's project workflows first)
  --cron <expr>         five fields, minute hour day month weekday ('30 2 * * *'), or six with seconds first
  --timezone <zone>     an IANA time zone name, e.g. Europe/Berlin. Default: UTC
  --input key=value     a value for one of the workflow's inputs; repeat for several
  --codebase <id>       run on this registered codebase (owner/repo), each run in its own worktree
  --overlap <policy>    when a due time comes while the schedule's run is still open: skip (default),
                        buffer_one, buffer_all, cancel_other or allow_all
  --catch-up <duration> due times missed (server down) by at most this much still run; older ones are
                        recorded missed. 30s, 15m, 2h, 1d or 0. Default: 1h
  --paused              add it paused (\`cairn schedule resume\` starts it)
${jsonOption}`,
  async run(argv, ctx) {
    const { values, positionals } = parseCommandArgs(this.name, argv, {
      workflow: { type: 'string' }, cron: { type: 'string' }, timezone: { type: 'string' }, input: { type: 'string', multiple: true },
      codebase: { type: 'string' }, overlap: { type: 'string' }, 'catch-up': { type: 'string' }, paused: { type: 'boolean' },
      json: { type: 'boolean' }, ...urlOption,
    });
    if (values.help) return printHelp(ctx, this.help);
    const [name] = expectPositionals(this.name, positionals, ['name']) as [string];
    const named = scheduleNameSchema.safeParse(name);
    if (!named.success) throw usageError(`schedule ${named.error.issues[0]!.message} (got '${name}')`, this.name);
    if (!values.workflow) throw usageError('--workflow <name> is required: the workflow the schedule runs', this.name);
    if (!values.cron) throw usageError("--cron <expr> is required, e.g. --cron '30 2 * * *'", this.name);
    const problem = cronProblem(values.cron, values.timezone ?? 'UTC');
    if (problem) throw usageError(problem, this.name);
    const overlap = values.overlap === undefined ? undefined : overlapPolicySchema.safeParse(values.overlap);
    if (overlap && !overlap.success) throw usageError(`--overlap '${values.overlap}' is not a policy: use ${overlapPolicySchema.options.join(', ')}`, this.name);
    const catchUp = values['catch-up'];
    if (catchUp !== undefined && catchUpMsOf(catchUp) === undefined) throw usageError(catchUpText(catchUp).replace(/^catch_up/, '--catch-up'), this.name);
    const inputs = parseInputs(this.name, values.input ?? []);
    const { raw, body } = await clientFor(ctx, values.url).request('POST', '/api/schedules', scheduleViewSchema, {
      body: {
        name, workflow: values.workflow, cron: values.cron,
        ...(values.timezone !== undefined ? { timezone: values.timezone } : {}),
        ...(Object.keys(inputs).length ? { inputs } : {}),
        ...(values.codebase !== undefined ? { codebaseId: values.codebase } : {}),
        ...(overlap?.success ? { overlap: overlap.data } : {}),
        ...(catchUp !== undefined ? { catchUp } : {}),
        ...(values.paused ? { paused: true } : {}),
      },
    });
    if (values.json) return printJson(ctx, raw);
    writeLine(ctx.stdout, `Schedule ${body.name}: ${body.workflow_name} at '${body.cron}' (${body.timezone}), overlap ${body.overlap}.`);
    writeLine(ctx.stdout, body.paused ? 'Paused: `cairn schedule resume` starts it.' : `Next: ${body.next_fire_times.slice(0, 3).join(', ')}`);
    return 0;
  },
};

function pauseCommand(action: 'pause' | 'resume'): Command {
  return {
    name: `schedule ${action}`,
    summary: action === 'pause' ? 'pause a schedule: its due times pass without runs' : 'resume a paused schedule',
    help: `Usage: cairn schedule ${action} <name-or-id> [--json] [--url <url>]

${action === 'pause'
    ? 'Pause a schedule. Its due times pass without runs (nothing is caught up when it resumes);\nruns it started go on.'
    : 'Resume a paused schedule. Due times from now on run; the time it was paused is not caught up.'}

Options:
${jsonOption}`,
    async run(argv, ctx) {
      const { values, positionals } = parseCommandArgs(this.name, argv, { json: { type: 'boolean' }, ...urlOption });
      if (values.help) return printHelp(ctx, this.help);
      const [id] = expectPositionals(this.name, positionals, ['name-or-id']) as [string];
      const { raw, body } = await clientFor(ctx, values.url).request('POST', schedulePath(id, `/${action}`), scheduleViewSchema);
      if (values.json) return printJson(ctx, raw);
      writeLine(ctx.stdout, body.paused ? `Paused schedule ${body.name}.` : `Resumed schedule ${body.name}; next: ${nextLine(body)}.`);
      return 0;
    },
  };
}

export const schedulePauseCommand = pauseCommand('pause');
export const scheduleResumeCommand = pauseCommand('resume');

export const scheduleRunNowCommand: Command = {
  name: 'schedule run-now',
  summary: "start a run of a schedule now (its overlap policy applies)",
  help: `Usage: cairn schedule run-now <name-or-id> [--json] [--url <url>]

Start a run of the schedule now, also while it is paused. It is decided like a due time: with
overlap skip and a run of the schedule still open, nothing starts and the answer says skipped.
Follow the run with \`cairn run follow <run-id>\`.

Options:
${jsonOption}`,
  async run(argv, ctx) {
    const { values, positionals } = parseCommandArgs(this.name, argv, { json: { type: 'boolean' }, ...urlOption });
    if (values.help) return printHelp(ctx, this.help);
    const [id] = expectPositionals(this.name, positionals, ['name-or-id']) as [string];
    const { raw, body } = await clientFor(ctx, values.url).request('POST', schedulePath(id, '/run-now'), runNowResponseSchema);
    if (values.json) return printJson(ctx, raw);
    if (body.runId) writeLine(ctx.stdout, `Started run ${body.runId}.${body.cancelled.length ? ` Asked ${body.cancelled.join(', ')} to cancel (overlap cancel_other).` : ''}`);
    else writeLine(ctx.stdout, `No run started: ${body.fire.outcome}${body.fire.reason ? ` (${body.fire.reason})` : ''}.`);
    return 0;
  },
};

export const scheduleRemoveCommand: Command = {
  name: 'schedule remove',
  summary: 'remove a schedule (its runs stay)',
  help: `Usage: cairn schedule remove <name-or-id> [--json] [--url <url>]

Remove a schedule and the record of its fires; the runs it started stay. A schedule a workflow
declares in its triggers: is removed by taking the trigger out of the file (or paused here).

Options:
${jsonOption}`,
  async run(argv, ctx) {
    const { values, positionals } = parseCommandArgs(this.name, argv, { json: { type: 'boolean' }, ...urlOption });
    if (values.help) return printHelp(ctx, this.help);
    const [id] = expectPositionals(this.name, positionals, ['name-or-id']) as [string];
    const { raw, body } = await clientFor(ctx, values.url).request('DELETE', schedulePath(id), scheduleDeleteResponseSchema);
    if (values.json) return printJson(ctx, raw);
    writeLine(ctx.stdout, `Removed schedule ${id} (${body.id}).`);
    return 0;
  },
};
