import { fanOutGridSchema, fanOutRetryResponseSchema, type FanOutGrid, type FanOutGridItem } from '../../wire/fan-out.js';
import type { ApiClient } from '../api-client.js';
import { expectPositionals, parseCommandArgs } from '../args.js';
import { writeLine } from '../../terminal/context.js';
import { firstLine, formatTable } from '../../terminal/format.js';
import { runPath } from '../run-detail-pages.js';
import { MIN_RUN_ID_PREFIX, resolveRunId } from '../run-id.js';
import { printHelp, printJson, serverOptionsHelp, type Command } from './command.js';
import { clientFor, urlOption } from './server-flags.js';

/** The grid's largest page. */
const PAGE = 500;

/** Every item of the node that failed or was cancelled: the ones a retry runs again. */
async function failedItems(client: ApiClient, base: string): Promise<FanOutGridItem[]> {
  const failed: FanOutGridItem[] = [];
  for (let offset: number | null = 0; offset !== null; ) {
    const { body }: { body: FanOutGrid } = await client.request('GET', `${base}?limit=${PAGE}&offset=${offset}`, fanOutGridSchema);
    failed.push(...body.items.filter((item) => item.status === 'failed' || item.status === 'cancelled'));
    offset = body.nextOffset;
  }
  return failed;
}

function describeItem(item: unknown): string {
  return firstLine(typeof item === 'string' ? item : JSON.stringify(item), 60);
}

export const runRetryItemsCommand: Command = {
  name: 'run retry-items',
  summary: 'run the failed items of a fan-out node again',
  help: `Usage: cairn run retry-items <id> <node> [--json] [--url <url>]

Run the failed (and cancelled) items of a fan-out node again, in a run that has finished
(completed or failed): the run resumes with that node run again; its completed items are reused,
only the failed ones run, the node joins again and the nodes after it follow. Prints the items it
retried (index, item, why it failed) and the server's answer; follow the run with
\`cairn run get <id>\`. Refused while the run is still going, and when no item failed. <id> is the
whole run id or its first ${MIN_RUN_ID_PREFIX} or more characters, as for \`cairn run get\`.

Options:
  --json             print the server's JSON ({ success, message, retried })
${serverOptionsHelp}`,
  async run(argv, ctx) {
    const { values, positionals } = parseCommandArgs(this.name, argv, { json: { type: 'boolean' }, ...urlOption });
    if (values.help) return printHelp(ctx, this.help);
    const [given, node] = expectPositionals(this.name, positionals, ['id', 'node']) as [string, string];
    const client = clientFor(ctx, values.url);
    const id = await resolveRunId(client, given, this.name);
    const base = `${runPath(id)}/fan-out/${encodeURIComponent(node)}`;
    // Read before the retry: once it runs, the items' statuses change.
    const items = values.json ? [] : await failedItems(client, base);
    const { raw, body } = await client.request('POST', `${base}/retry`, fanOutRetryResponseSchema);
    if (values.json) return printJson(ctx, raw);
    writeLine(ctx.stdout, body.message);
    if (items.length) {
      const rows = items.map((item) => [String(item.index), describeItem(item.item), item.status, firstLine(item.error, 80)]);
      writeLine(ctx.stdout);
      for (const line of formatTable(['INDEX', 'ITEM', 'WAS', 'ERROR'], rows)) writeLine(ctx.stdout, line);
    }
    writeLine(ctx.stdout, `Follow it with \`cairn run get ${id}\`.`);
    return 0;
  },
};
