import { runOperationResponseSchema } from '../../wire/runs.js';
import { expectPositionals, parseCommandArgs } from '../args.js';
import { writeLine } from '../../terminal/context.js';
import { runPath } from '../run-detail-pages.js';
import { MIN_RUN_ID_PREFIX, resolveRunId } from '../run-id.js';
import { printHelp, serverOptionsHelp, type Command } from './command.js';
import { clientFor, urlOption } from './server-flags.js';

/** The commands that answer a paused run's gate, as `cairn workflow run` prints them. */
export function gateCommands(runId: string): { approve: string; reject: string } {
  return {
    approve: `cairn run approve ${runId} --comment "<your comment>"`,
    reject: `cairn run reject ${runId} --reason "<why>"`,
  };
}

function answerCommand(verb: 'approve' | 'reject', field: 'comment' | 'reason', what: string): Command {
  return {
    name: `run ${verb}`,
    summary: `${verb} the gate a paused run waits at`,
    help: `Usage: cairn run ${verb} <id> [--${field} <text>] [--url <url>]

${what} <id> is the whole run id or its first ${MIN_RUN_ID_PREFIX} or more characters, as for
\`cairn run get\`. Refused (exit 1, with the server's reason) when the run is not paused at a
gate, or its gate was already answered.

Options:
  --${field} <text>${' '.repeat(Math.max(1, 10 - field.length))}${field === 'comment' ? 'the comment recorded with the approval (the gate\'s output with capture_response)' : 'why (the rework reads it as $REJECTION_REASON)'}
${serverOptionsHelp}`,
    async run(argv, ctx) {
      const { values, positionals } = parseCommandArgs(this.name, argv, { [field]: { type: 'string' }, ...urlOption });
      if (values.help) return printHelp(ctx, this.help);
      const [given] = expectPositionals(this.name, positionals, ['id']) as [string];
      const client = clientFor(ctx, values.url as string | undefined);
      const id = await resolveRunId(client, given, this.name);
      const text = (values as Record<string, unknown>)[field];
      const body = typeof text === 'string' ? { [field]: text } : {};
      const { body: answer } = await client.request('POST', `${runPath(id)}/${verb}`, runOperationResponseSchema, { body });
      writeLine(ctx.stdout, answer.message);
      return 0;
    },
  };
}

export const runApproveCommand = answerCommand(
  'approve',
  'comment',
  'Approve the gate (an approval: node) a paused run waits at; the run continues.',
);

export const runRejectCommand = answerCommand(
  'reject',
  'reason',
  'Reject the gate a paused run waits at. A plain gate cancels the run; a gate with on_reject runs its\nrework and asks again (until max_attempts); a gate with authored decisions that include reject\ncompletes with {"decision": "reject", "text": <reason>}.',
);
