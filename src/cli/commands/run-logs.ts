import {
  runLogChunkResponseSchema,
  runLogsResponseSchema,
  type AttemptLog,
  type RunLogChunkResponse,
} from '../../wire/runs.js';
import type { ApiClient } from '../api-client.js';
import { expectPositionals, parseCommandArgs } from '../args.js';
import { EXIT_FAILURE, EXIT_INTERRUPTED, EXIT_OK, EXIT_PAUSED, usageError } from '../../terminal/cli-error.js';
import { isColorWanted, writeLine, type CliContext } from '../../terminal/context.js';
import { createStyle, firstLine, type Style } from '../../terminal/format.js';
import { followRunEvents } from '../run-events-follow.js';
import { printPaused, waitsOnAnsweredChild } from '../run-follow.js';
import { isFinal, outcomeOf, type RunOutcome } from '../run-progress.js';
import { MIN_RUN_ID_PREFIX, resolveRunId } from '../run-id.js';
import { toolLineOf } from '../tool-lines.js';
import { printHelp, printJson, serverOptionsHelp, type Command } from './command.js';
import { clientFor, urlOption } from './server-flags.js';

const streams = ['stdout', 'stderr'] as const;
type StreamName = (typeof streams)[number];

export const runLogsCommand: Command = {
  name: 'run logs',
  summary: "print what a run's nodes wrote on stdout and stderr",
  help: `Usage: cairn run logs <id> [--node <node>] [--stream stdout|stderr] [--full] [--follow] [--json] [--url <url>]

Print what every finished attempt of a run wrote on stdout and stderr, oldest first: a failed
node's output and a successful node's warnings included. Each stream shows its first 32 KiB;
--full prints every byte kept (long streams are kept in the run's artifacts).
<id> is the whole run id or its first ${MIN_RUN_ID_PREFIX} or more characters.

Options:
  --node <node>      only attempts of this node (its id or path)
  --stream <name>    only stdout or only stderr
  --full             print streams whole, not only their first 32 KiB
  --follow           follow the run as it goes, until it ends or pauses (see below)
  --json             print the attempts as the server answers them (every page in one array)
${serverOptionsHelp}

With --follow, the run's nodes are shown in the order things happen, from its first event: a
line when a node starts; a line per tool call of an AI node, with a short summary of its input
(\`called   look Read notes.txt\`), and one when the call returns (\`ok\`, \`error\`, or
\`refused\` when the node's permissions said no); what a bash or script node prints while it
runs, a line at a time after its node (\`slow | building step 1\`, a batch every half second); and
each attempt's stdout and stderr, as above, when the attempt ends (of a stream shown while it
ran, the rest). It keeps following until the run ends (exit 0 when it completed, 1 when it
failed or was cancelled) or pauses (exit 3, printing what answers the gate). Ctrl-C stops it
(exit 130); the run goes on.`,
  async run(argv, ctx) {
    const { values, positionals } = parseCommandArgs(this.name, argv, {
      node: { type: 'string' },
      stream: { type: 'string' },
      full: { type: 'boolean' },
      follow: { type: 'boolean' },
      json: { type: 'boolean' },
      ...urlOption,
    });
    if (values.help) return printHelp(ctx, this.help);
    const [given] = expectPositionals(this.name, positionals, ['id']) as [string];
    if (values.stream !== undefined && !(streams as readonly string[]).includes(values.stream)) {
      throw usageError(`--stream must be stdout or stderr; got '${values.stream}'.`, this.name);
    }
    if (values.follow && values.json) throw usageError('--follow prints lines as they come; it does not go with --json.', this.name);
    const wanted = values.stream === undefined ? streams : [values.stream as StreamName];
    const client = clientFor(ctx, values.url);
    const id = await resolveRunId(client, given, this.name);
    const style = createStyle(isColorWanted(ctx.stdout, ctx.env));
    if (values.follow) return followLogs(ctx, client, id, { node: values.node, wanted, full: values.full === true, style });
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
  /** What `--follow` already printed of each stream while the attempt ran (its live output). */
  shown: Partial<Record<StreamName, string>> = {},
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
    const before = shown[name] ?? '';
    if (before !== '' && stream.text.startsWith(before)) {
      // Printed as it ran: only what came after the last live batch.
      const rest = stream.text.slice(before.length);
      writeLine(ctx.stdout, style.dim(`-- ${name} (${stream.bytes} bytes; the first ${Buffer.byteLength(before)} shown above as it ran)`));
      if (rest !== '') ctx.stdout.write(rest.endsWith('\n') ? rest : `${rest}\n`);
      continue;
    }
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

/** The verb column, padded as the progress lines of `workflow run` are. */
function verb(text: string): string {
  return text.padEnd(8);
}

/**
 * `run logs --follow`: the run's frames from its first recorded event, then live. A node's start
 * and its tool calls are a line each; an attempt's end prints its logs (read by the seq of its
 * terminal event, which `GET …/logs?afterSeq=<seq - 1>&limit=1` answers first).
 */
async function followLogs(
  ctx: CliContext,
  client: ApiClient,
  runId: string,
  opts: { node: string | undefined; wanted: readonly StreamName[]; full: boolean; style: Style },
): Promise<number> {
  const { style } = opts;
  const controller = new AbortController();
  let interrupted = false;
  const removeInterrupt = ctx.onInterrupt(() => {
    interrupted = true;
    controller.abort(new Error('interrupted'));
  });
  let outcome: RunOutcome | undefined;
  let paused: { reason: string | undefined } | undefined;
  let recordedPause: { reason: string | undefined } | undefined;
  // Attempts' logs are read in order, one after another, behind the lines already printed.
  let printing: Promise<void> = Promise.resolve();
  let printFailed: { error: unknown } | undefined;
  const later = (step: () => void | Promise<void>) => {
    printing = printing.then(() => (printFailed ? undefined : step())).catch((error: unknown) => {
      printFailed ??= { error };
    });
  };
  // Per node path, what its running attempt printed so far (its node_output events).
  const live = new Map<string, Partial<Record<StreamName, string>>>();
  const open = new Map<string, string>();
  const wantedNode = (node: string) => opts.node === undefined || node === opts.node || node.startsWith(`${opts.node}/`);
  try {
    await followRunEvents({
      client,
      runId,
      signal: controller.signal,
      from: 'recorded',
      handler: {
        frame(frame, _json, recorded) {
          if (!frame || !('runId' in frame) || frame.runId !== runId) return false;
          outcome = outcomeOf(frame, runId);
          if (outcome) return true;
          if (frame.type === 'workflow_status') {
            if (frame.status !== 'paused') recordedPause = undefined;
            else if (recorded) recordedPause = { reason: frame.reason };
            else paused = { reason: frame.reason };
            return paused !== undefined;
          }
          const output = liveOutputOf(frame);
          if (output) {
            if (wantedNode(output.path) && opts.wanted.includes(output.stream)) {
              // Whole lines as they come, each after its node; a line still open waits for the rest.
              const key = `${output.path}\n${output.stream}`;
              const text = (open.get(key) ?? '') + output.text;
              const end = text.lastIndexOf('\n') + 1;
              open.set(key, text.slice(end));
              if (end > 0) {
                const seen = live.get(output.path) ?? {};
                seen[output.stream] = (seen[output.stream] ?? '') + text.slice(0, end);
                live.set(output.path, seen);
                const prefix = style.dim(`${output.path} |`);
                const lines = text.slice(0, end - 1).split('\n');
                later(() => lines.forEach((line) => writeLine(ctx.stdout, `${prefix} ${line}`)));
              }
            }
            return false;
          }
          const tool = toolLineOf(frame);
          if (tool) {
            if (wantedNode(tool.node)) later(() => writeLine(ctx.stdout, `${style.dim(verb(tool.verb))} ${tool.node} ${tool.tool}${tool.summary ? ` ${tool.summary}` : ''}`));
            return false;
          }
          if (frame.type !== 'dag_node' || !wantedNode(frame.nodeId)) return false;
          if (frame.status === 'running') {
            live.delete(frame.nodeId);
            for (const name of ['stdout', 'stderr']) open.delete(`${frame.nodeId}\n${name}`);
            later(() => writeLine(ctx.stdout, `${style.cyan(verb('started'))} ${frame.nodeId}`));
          }
          if (frame.status === 'completed' || frame.status === 'failed') {
            const seq = frame.seq;
            const shown = live.get(frame.nodeId) ?? {};
            live.delete(frame.nodeId);
            later(() => printAttemptEndedAt(ctx, client, runId, seq, opts, shown));
          }
          return false;
        },
        async recordedEnd(run) {
          if (isFinal(run.status)) {
            outcome = { status: run.status, error: run.error };
            return true;
          }
          if (run.status !== 'paused' || (await waitsOnAnsweredChild(client, run, controller.signal))) return false;
          paused = recordedPause ?? { reason: undefined };
          return true;
        },
      },
    });
    await printing;
    if (printFailed) throw printFailed.error;
  } catch (err) {
    if (!interrupted) throw err;
  } finally {
    removeInterrupt();
  }
  if (interrupted) {
    writeLine(ctx.stderr, `Stopped following run ${runId}; it goes on.`);
    return EXIT_INTERRUPTED;
  }
  if (paused) {
    await printPaused(ctx, client, runId, paused.reason, style);
    return EXIT_PAUSED;
  }
  if (outcome?.status === 'completed') {
    writeLine(ctx.stdout, style.green(`Run ${runId} completed.`));
    return EXIT_OK;
  }
  const what = outcome?.status === 'cancelled' ? 'was cancelled' : 'failed';
  writeLine(ctx.stderr, style.red(`Run ${runId} ${what}${outcome?.error ? `: ${outcome.error}` : '.'}`));
  return EXIT_FAILURE;
}

/** The logs of the attempt whose terminal event is `seq`, as `run logs` prints them. */
async function printAttemptEndedAt(
  ctx: CliContext,
  client: ApiClient,
  runId: string,
  seq: number,
  opts: { wanted: readonly StreamName[]; full: boolean; style: Style },
  shown: Partial<Record<StreamName, string>> = {},
): Promise<void> {
  const query = new URLSearchParams({ afterSeq: String(seq - 1), limit: '1' });
  const { body } = await client.request('GET', `/api/workflows/runs/${encodeURIComponent(runId)}/logs?${query}`, runLogsResponseSchema);
  const attempt = body.attempts[0];
  if (attempt?.seq === seq) await printAttempt(ctx, client, runId, attempt, opts.wanted, opts.full, opts.style, shown);
}

/** A running node's printed output (a `node_output` event), or undefined. */
function liveOutputOf(frame: unknown): { path: string; stream: StreamName; text: string } | undefined {
  const f = frame as { type?: string; eventType?: string; stepName?: string | null; data?: { stream?: unknown; text?: unknown } };
  if (f.type !== 'workflow_event' || f.eventType !== 'node_output' || !f.stepName) return undefined;
  const stream = f.data?.stream;
  if ((stream !== 'stdout' && stream !== 'stderr') || typeof f.data?.text !== 'string') return undefined;
  return { path: f.stepName, stream, text: f.data.text };
}
