import {
  runLogChunkResponseSchema,
  runLogsResponseSchema,
  type AttemptLog,
  type RunLogChunkResponse,
} from '../../wire/runs.js';
import type { ApiClient } from '../api-client.js';
import { expectPositionals, parseCommandArgs } from '../args.js';
import { usageError } from '../cli-error.js';
import { isColorWanted, writeLine, type CliContext } from '../context.js';
import { createStyle, firstLine, type Style } from '../format.js';
import { MIN_RUN_ID_PREFIX, resolveRunId } from '../run-id.js';
import { printHelp, printJson, serverOptionsHelp, type Command } from './command.js';
import { clientFor, urlOption } from './server-flags.js';

const streams = ['stdout', 'stderr'] as const;
type StreamName = (typeof streams)[number];

export const runLogsCommand: Command = {
  name: 'run logs',
  summary: "print what a run's nodes wrote on stdout and stderr",
  help: `Usage: cairn run logs <id> [--node <node>] [--stream stdout|stderr] [--full] [--json] [--url <url>]

Print what every finished attempt of a run wrote on stdout and stderr, oldest first: a failed
node's output and a successful node's warnings included. Each stream shows its first 32 KiB;
--full prints every byte kept (long streams are kept in the run's artifacts).
<id> is the whole run id or its first ${MIN_RUN_ID_PREFIX} or more characters.

Options:
  --node <node>      only attempts of this node (its id or path)
  --stream <name>    only stdout or only stderr
  --full             print streams whole, not only their first 32 KiB
  --json             print the attempts as the server answers them (every page in one array)
${serverOptionsHelp}`,
  async run(argv, ctx) {
    const { values, positionals } = parseCommandArgs(this.name, argv, {
      node: { type: 'string' },
      stream: { type: 'string' },
      full: { type: 'boolean' },
      json: { type: 'boolean' },
      ...urlOption,
    });
    if (values.help) return printHelp(ctx, this.help);
    const [given] = expectPositionals(this.name, positionals, ['id']) as [string];
    if (values.stream !== undefined && !(streams as readonly string[]).includes(values.stream)) {
      throw usageError(`--stream must be stdout or stderr; got '${values.stream}'.`, this.name);
    }
    const wanted = values.stream === undefined ? streams : [values.stream as StreamName];
    const client = clientFor(ctx, values.url);
    const id = await resolveRunId(client, given, this.name);
    const style = createStyle(isColorWanted(ctx.stdout, ctx.env));
    const all: AttemptLog[] = [];
    let printed = false;
    let afterSeq = 0;
    for (;;) {
      const query = new URLSearchParams({ afterSeq: String(afterSeq) });
      if (values.node) query.set('node', values.node);
      const { body } = await client.request('GET', `/api/workflows/runs/${encodeURIComponent(id)}/logs?${query}`, runLogsResponseSchema);
      if (values.json) all.push(...body.attempts);
      else for (const attempt of body.attempts) await printAttempt(ctx, client, id, attempt, wanted, values.full === true, style);
      if (body.attempts.length > 0) printed = true;
      if (body.nextAfterSeq === null) break;
      afterSeq = body.nextAfterSeq;
    }
    if (values.json) return printJson(ctx, { attempts: all });
    if (!printed) {
      writeLine(ctx.stdout, values.node ? `No finished attempt of node '${values.node}' in run ${id}. Check the node id with \`cairn run get ${id}\`.` : `No attempt of run ${id} has finished yet.`);
    }
    return 0;
  },
};

async function printAttempt(
  ctx: CliContext,
  client: ApiClient,
  runId: string,
  attempt: AttemptLog,
  wanted: readonly StreamName[],
  full: boolean,
  style: Style,
): Promise<void> {
  const outcome = attempt.interrupted
    ? style.yellow('interrupted')
    : attempt.status === 'completed'
      ? style.green('completed')
      : style.red(attempt.failureKind === 'cancelled' ? 'cancelled' : 'failed');
  const error = attempt.error && !attempt.interrupted ? `: ${firstLine(attempt.error, 120)}` : '';
  writeLine(ctx.stdout, style.bold(`== ${attempt.path} (attempt ${attempt.attemptId?.slice(0, 8) ?? '?'}) ${outcome}${error}`));
  for (const name of wanted) {
    const stream = attempt[name];
    if (!stream || stream.bytes === 0) continue;
    writeLine(ctx.stdout, style.dim(`-- ${name} (${stream.bytes} bytes)`));
    if (full && stream.truncated) {
      await printWhole(ctx, client, runId, attempt.seq, name);
    } else {
      ctx.stdout.write(stream.text.endsWith('\n') ? stream.text : `${stream.text}\n`);
      if (stream.truncated) {
        writeLine(ctx.stdout, style.dim(`-- ${name} cut at ${Buffer.byteLength(stream.text)} of ${stream.bytes} bytes; add --full to print all of it`));
      }
    }
  }
}

/** A stream whole, a chunk at a time, so a large one never sits in memory at once. */
async function printWhole(ctx: CliContext, client: ApiClient, runId: string, seq: number, name: StreamName): Promise<void> {
  let offset: number | null = 0;
  let last = '';
  while (offset !== null) {
    const path: string = `/api/workflows/runs/${encodeURIComponent(runId)}/logs/${seq}/${name}?offset=${offset}`;
    const { body }: { body: RunLogChunkResponse } = await client.request('GET', path, runLogChunkResponseSchema);
    ctx.stdout.write(body.text);
    if (body.text) last = body.text;
    offset = body.nextOffset;
  }
  if (!last.endsWith('\n')) writeLine(ctx.stdout);
}
