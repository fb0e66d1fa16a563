import { RUN_EVENTS_MAX_LIMIT, runDetailResponseSchema, type RunDetailResponse } from '../wire/runs.js';
import type { ApiClient, ApiResult } from './api-client.js';
import { CliError } from '../terminal/cli-error.js';

export const runPath = (id: string) => `/api/workflows/runs/${encodeURIComponent(id)}`;

/**
 * A run and its events, one answer of `GET /api/workflows/runs/{id}` at a time: each page's
 * `nextAfterSeq` is the next request's `afterSeq`, until it is null. Pages are as large as the
 * server allows, so a run of 20,000 events takes ten requests and the caller never needs to
 * hold more than one page.
 */
export async function* readRunDetailPages(client: ApiClient, runId: string): AsyncGenerator<ApiResult<RunDetailResponse>> {
  let afterSeq = 0;
  for (;;) {
    const query = new URLSearchParams({ afterSeq: String(afterSeq), limit: String(RUN_EVENTS_MAX_LIMIT) });
    const page = await client.request('GET', `${runPath(runId)}?${query}`, runDetailResponseSchema);
    yield page;
    const next = page.body.nextAfterSeq;
    if (next === null) return;
    if (next <= afterSeq) {
      throw new CliError('SERVER_ERROR', `The server's event pages for run ${runId} do not advance (afterSeq ${afterSeq}, next ${next}).`);
    }
    afterSeq = next;
  }
}
