import { expectPositionals, parseCommandArgs } from '../args.js';
import { EXIT_INTERRUPTED, usageError } from '../../terminal/cli-error.js';
import { isColorWanted, writeLine } from '../../terminal/context.js';
import { createStyle } from '../../terminal/format.js';
import { followRun, reportFollowEnd } from '../run-follow.js';
import { MIN_RUN_ID_PREFIX, resolveRunId } from '../run-id.js';
import { outputModes, type OutputMode } from '../run-output.js';
import { printHelp, serverOptionsHelp, type Command } from './command.js';
import { clientFor, urlOption } from './server-flags.js';

export const runFollowCommand: Command = {
  name: 'run follow',
  summary: 'show a run live, what happened so far and then as it goes, as `workflow run` does',
  help: `Usage: cairn run follow <id> [--output last|all|none] [--json] [--url <url>]

Re-attach to a run (one \`cairn workflow run\` left at a gate, or one started elsewhere) and show
it as \`cairn workflow run\` does: first a line for each node event already recorded, then the
events as they happen, each once. <id> is the whole run id or its first ${MIN_RUN_ID_PREFIX} or more characters.
When the run pauses at an approval gate, it prints the gate's message and the exact
\`cairn run approve\` / \`cairn run reject\` commands that answer it (on the child run whose gate
it is, when the run waits on a child run); run from a terminal it waits for the answer and goes
on, otherwise it exits. A run that already ended is shown whole, with its outcome. Ctrl-C stops
following; the run goes on.

Options:
  --output <which>   when the run completes, print the output of the node that finished last
                     (last, the default), of every completed node (all), or nothing (none)
  --json             print one stream event per line (the recorded ones as the stream sends them)
${serverOptionsHelp}

Exit status: 0 when the run completes, 1 when it fails or is cancelled, 2 on a usage error,
3 when the run is paused (at a gate, or on its budget; stdin not a terminal), 130 when
interrupted with Ctrl-C (the run goes on).`,
  async run(argv, ctx) {
    const { values, positionals } = parseCommandArgs(this.name, argv, {
      json: { type: 'boolean' },
      output: { type: 'string' },
      ...urlOption,
    });
    if (values.help) return printHelp(ctx, this.help);
    const [given] = expectPositionals(this.name, positionals, ['id']) as [string];
    const outputMode = values.output ?? 'last';
    if (!(outputModes as readonly string[]).includes(outputMode)) {
      throw usageError(`--output must be one of ${outputModes.join(', ')}, not '${outputMode}'`, this.name);
    }
    const json = values.json === true;
    const style = createStyle(isColorWanted(ctx.stdout, ctx.env));
    const client = clientFor(ctx, values.url);
    const runId = await resolveRunId(client, given, this.name);
    const result = await followRun(ctx, client, runId, {
      json, style,
      waitAtGates: ctx.stdinIsTTY === true,
      whileWaiting: 'Waiting for the run to go on (Ctrl-C stops following; the run stays paused).',
      from: 'recorded',
      onRun(run) {
        if (!json) writeLine(ctx.stdout, `Run ${style.bold(run.id)} of workflow ${style.bold(run.workflow_name)} (${run.status}):`);
      },
    });
    if (result.interrupted) {
      writeLine(ctx.stderr, `Stopped following run ${runId}; it goes on. Follow it again with: cairn run follow ${runId}`);
      return EXIT_INTERRUPTED;
    }
    const run = result.recordedRun;
    const started = Date.parse(run?.started_at ?? run?.created_at ?? '');
    const took = () => {
      const ended = result.outcome?.at ?? Date.parse(run?.completed_at ?? '');
      return Number.isFinite(ended) && Number.isFinite(started) ? Math.max(0, ended - started) : 0;
    };
    return reportFollowEnd(ctx, client, runId, result, { json, style, outputMode: outputMode as OutputMode, took });
  },
};
