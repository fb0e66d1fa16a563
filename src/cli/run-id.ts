import { RUN_LIST_MAX_LIMIT, runListResponseSchema, type WorkflowRun } from '../wire/runs.js';
import type { ApiClient } from './api-client.js';
import { CliError, usageError } from '../terminal/cli-error.js';
import { nextSteps } from './error-hints.js';
import { formatTable, formatTimestamp } from '../terminal/format.js';

/**
 * The fewest characters of a run id the CLI matches as a prefix. Run ids are UUIDs: 8 hex digits
 * leave one chance in four billion that two runs share them, and the common short forms people
 * copy (`git`-style 8, or the first group of the UUID) are at least that long.
 */
export const MIN_RUN_ID_PREFIX = 8;

const wholeUuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The API has no lookup by prefix (its run list filters by status, conversation and workflow),
 * so a prefix is matched against the newest runs the list returns in one answer.
 */
async function listNewestRuns(client: ApiClient): Promise<WorkflowRun[]> {
  const query = new URLSearchParams({ limit: String(RUN_LIST_MAX_LIMIT) });
  const { body } = await client.request('GET', `/api/workflows/runs?${query}`, runListResponseSchema);
  return body.runs;
}

function candidatesTable(runs: readonly WorkflowRun[]): string {
  const rows = runs.map((run) => [run.id, run.workflow_name, run.status, formatTimestamp(run.started_at ?? run.created_at)]);
  return formatTable(['RUN', 'WORKFLOW', 'STATUS', 'STARTED'], rows)
    .map((line) => `  ${line}`)
    .join('\n');
}

/**
 * The run id `given` stands for. A whole id is used as it is (the server says whether it
 * exists). Anything else is a prefix of at least 8 characters that must match exactly one of
 * the newest runs; several matches are an error listing them, so a short id never picks a run
 * by chance. `command` is the command as typed, for the usage hint.
 */
export async function resolveRunId(client: ApiClient, given: string, command: string): Promise<string> {
  const wanted = given.trim();
  if (wholeUuid.test(wanted)) return wanted;
  if (wanted.length < MIN_RUN_ID_PREFIX) {
    throw usageError(
      `'${wanted}' is too short to find a run by: give the whole run id or at least its first ${MIN_RUN_ID_PREFIX} characters ` +
        '(`cairn run list` shows the ids).',
      command,
    );
  }
  const runs = await listNewestRuns(client);
  const exact = runs.find((run) => run.id === wanted);
  if (exact) return exact.id;
  const lower = wanted.toLowerCase();
  const matches = runs.filter((run) => run.id.toLowerCase().startsWith(lower));
  const [only] = matches;
  if (matches.length === 1 && only) return only.id;
  if (matches.length > 1) {
    throw new CliError(
      'RUN_ID_AMBIGUOUS',
      `'${wanted}' is the start of ${matches.length} run ids; give more of the id:\n${candidatesTable(matches)}`,
    );
  }
  throw new CliError(
    'RUN_NOT_FOUND',
    `Workflow run not found: no run id is or starts with '${wanted}' among the ${RUN_LIST_MAX_LIMIT} newest runs. ` +
      `${nextSteps.runList}; an older run needs its whole id.`,
  );
}
