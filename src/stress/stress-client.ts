import { z } from 'zod';
import { RUN_EVENTS_MAX_LIMIT, RUN_LIST_MAX_LIMIT, runDetailResponseSchema, runListResponseSchema, type RunEventView, type WorkflowRun } from '../wire/runs.js';
import { CliError } from '../terminal/cli-error.js';

/**
 * The stress harness's HTTP client. A kill takes the API away for a moment, so a request that
 * finds no server, or a 5xx, is tried again until `patienceMs` has passed; any 4xx is an answer.
 */

/** How long a request keeps trying through restarts of the API before it gives up. */
const DEFAULT_PATIENCE_MS = 60_000;
const RETRY_EVERY_MS = 100;

const startedRunSchema = z.object({ runId: z.string() });
const healthSchema = z.object({
  concurrency: z.object({
    active: z.number(),
    supervisor: z.object({ up: z.boolean(), pid: z.number().nullable().optional() }),
  }),
});
export type Health = z.infer<typeof healthSchema>;

export interface StressClient {
  readonly url: string;
  health(): Promise<Health>;
  /** One `GET /health/db`, not tried again: whether the database takes writes, and the server's reason when not. */
  databaseHealth(): Promise<{ ok: boolean; error: string | null }>;
  startRun(workflow: string): Promise<string>;
  /** The run with at most its first event: its status, cheaply. */
  readRunHead(runId: string): Promise<{ run: WorkflowRun }>;
  /** The run and its whole event log, read a page at a time. */
  readRun(runId: string): Promise<{ run: WorkflowRun; events: RunEventView[] }>;
  listRuns(): Promise<WorkflowRun[]>;
  /** POSTs `approve` or `resume`; a 4xx comes back as `{ ok: false, error }`, never thrown. */
  operate(runId: string, op: 'approve' | 'resume'): Promise<{ ok: boolean; error?: string }>;
  saveWorkflow(name: string, definition: unknown): Promise<void>;
}

class HttpAnswer extends Error {
  constructor(readonly status: number, readonly body: string) {
    super(`HTTP ${status}: ${body.slice(0, 300)}`);
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A client of the server at `url`; requests give up after `patienceMs` of failures. */
export function createStressClient(url: string, opts: { patienceMs?: number } = {}): StressClient {
  const patience = opts.patienceMs ?? DEFAULT_PATIENCE_MS;
  const send = async <S extends z.ZodType>(method: string, path: string, schema: S, body?: unknown): Promise<z.infer<S>> => {
    const deadline = Date.now() + patience;
    for (;;) {
      let failure: unknown;
      try {
        const res = await fetch(`${url}${path}`, {
          method,
          signal: AbortSignal.timeout(30_000),
          headers: body === undefined ? {} : { 'content-type': 'application/json' },
          body: body === undefined ? undefined : JSON.stringify(body),
        });
        const text = await res.text();
        if (res.status >= 400 && res.status < 500) throw new HttpAnswer(res.status, text);
        if (res.ok) return schema.parse(JSON.parse(text));
        failure = new HttpAnswer(res.status, text);
      } catch (err) {
        if (err instanceof HttpAnswer) throw err;
        failure = err;
      }
      if (Date.now() > deadline) {
        throw new CliError('SERVER_UNREACHABLE', `${method} ${url}${path} kept failing for ${patience / 1000} s: ${(failure as Error)?.message}`, undefined, { cause: failure });
      }
      await sleep(RETRY_EVERY_MS);
    }
  };
  const runPath = (id: string) => `/api/workflows/runs/${encodeURIComponent(id)}`;
  return {
    url,
    health: () => send('GET', '/api/health', healthSchema),
    async databaseHealth() {
      try {
        const res = await fetch(`${url}/health/db`, { signal: AbortSignal.timeout(10_000) });
        const body = (await res.json().catch(() => ({}))) as { error?: unknown };
        return { ok: res.ok, error: res.ok ? null : typeof body.error === 'string' ? body.error : `HTTP ${res.status}` };
      } catch (err) {
        return { ok: false, error: `unreachable: ${(err as Error).message}` };
      }
    },
    async startRun(workflow) {
      return (await send('POST', `/api/workflows/${encodeURIComponent(workflow)}/run`, startedRunSchema, {})).runId;
    },
    readRunHead: (runId) => send('GET', `${runPath(runId)}?limit=1`, runDetailResponseSchema),
    async readRun(runId) {
      const events: RunEventView[] = [];
      let afterSeq = 0;
      for (;;) {
        const page = await send('GET', `${runPath(runId)}?afterSeq=${afterSeq}&limit=${RUN_EVENTS_MAX_LIMIT}`, runDetailResponseSchema);
        events.push(...page.events);
        if (page.nextAfterSeq === null || page.nextAfterSeq <= afterSeq) return { run: page.run, events };
        afterSeq = page.nextAfterSeq;
      }
    },
    async listRuns() {
      const runs: WorkflowRun[] = [];
      let cursor: string | null = null;
      do {
        const query: string = `limit=${RUN_LIST_MAX_LIMIT}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
        const page = await send('GET', `/api/workflows/runs?${query}`, runListResponseSchema);
        runs.push(...page.runs);
        cursor = page.nextCursor;
      } while (cursor);
      return runs;
    },
    async operate(runId, op) {
      try {
        await send('POST', `${runPath(runId)}/${op}`, z.unknown(), op === 'approve' ? { comment: 'approved by cairn stress' } : {});
        return { ok: true };
      } catch (err) {
        if (err instanceof HttpAnswer) return { ok: false, error: err.message };
        throw err;
      }
    },
    async saveWorkflow(name, definition) {
      await send('PUT', `/api/workflows/${encodeURIComponent(name)}?source=global`, z.unknown(), { definition });
    },
  };
}
