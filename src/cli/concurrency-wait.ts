import { runDetailResponseSchema, type WorkflowRun } from '../wire/runs.js';
import type { ApiClient } from './api-client.js';
import { runPath } from './run-detail-pages.js';

/** A pending run its workflow's `concurrency:` holds back: its key, its place in line and whom it waits for. */
export function waitingLine(run: WorkflowRun): string | undefined {
  const concurrency = run.metadata.concurrency;
  if (!concurrency?.waiting_for) return undefined;
  const holders = concurrency.waiting_for.length > 0 ? concurrency.waiting_for.join(', ') : 'the runs ahead of it';
  return (
    `for a place of concurrency key ${JSON.stringify(concurrency.key)} (limit ${concurrency.limit}): ` +
    `number ${concurrency.position ?? 1} in line; it starts when one of ${holders} ends`
  );
}

/**
 * The wait of a run just started, as `cairn workflow run` prints it: read once (the run's first
 * event page), undefined when the run has a place.
 */
export async function waitingLineOf(client: ApiClient, runId: string): Promise<string | undefined> {
  const { body } = await client.request('GET', `${runPath(runId)}?limit=1`, runDetailResponseSchema);
  return body.run.status === 'pending' ? waitingLine(body.run) : undefined;
}

/**
 * What `cairn run resume` adds when the resumed run waits for a place of its concurrency key
 * (`on_overlap: queue`; the server's answer says for whom): what to do next. Nothing when it has a place.
 */
export async function waitingAdvice(client: ApiClient, runId: string): Promise<string[]> {
  const { body } = await client.request('GET', `${runPath(runId)}?limit=1`, runDetailResponseSchema);
  if (body.run.status !== 'pending' || !body.run.metadata.concurrency?.waiting_for) return [];
  const holders = body.run.metadata.concurrency.waiting_for;
  const cancel = holders.length === 1 ? `\`cairn run cancel ${holders[0]}\` frees its place now` : '`cairn run cancel <run id>` on one of them frees a place now';
  return [`It goes on by itself from where it failed (nodes that succeeded are not run again); follow it with \`cairn run get ${runId}\`, or ${cancel}.`];
}
