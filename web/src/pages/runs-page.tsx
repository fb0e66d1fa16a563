import { useEffect, useRef, useState } from 'preact/hooks';
import { getJson, withQuery } from '../api.js';
import { ago, shortId } from '../format.js';
import { useKeys } from '../keyboard.js';
import { useLiveRead } from '../live-read.js';
import { hrefWith, location, navigate } from '../router.js';
import { BulkBar } from '../run/bulk-bar.js';
import { StatusBadge } from '../status-badge.js';
import { runStatuses, type DashboardPage, type DashboardRun } from '../types.js';
import type { Codebase } from '../codebases/types.js';
import { dashboardQuery, filtersOf } from '../runs/run-filters.js';

/**
 * `/`: every run, newest first, from `GET /api/dashboard/runs`, a page at a time. The filters
 * (`status`, `workflow`, `codebase`, the days `from` and `to`, `q` for text, `page`; runs/run-filters.ts)
 * live in the address. Live: a run's status changes
 * in place as its frame arrives, and the page is read again (once, however many frames came
 * meanwhile) so that new runs appear and the counts move. No timer: the stream drives it.
 * Runs ticked on the page (or with `x`) can be cancelled, resumed or deleted at once (BulkBar).
 */

export const PAGE_SIZE = 50;

interface StepPatch {
  /** The number of the frame that said it (counted by the page). */
  at: number;
  current_step_name: string | null;
  current_step_status: string | null;
}

function withStepPatch(run: DashboardRun, patch: StepPatch | undefined): DashboardRun {
  return patch ? { ...run, current_step_name: patch.current_step_name, current_step_status: patch.current_step_status } : run;
}

export function RunsPage() {
  const filters = filtersOf(location.value.query);
  const key = JSON.stringify(filters);
  const [page, setPage] = useState<DashboardPage | undefined>(undefined);
  // The page number the list on screen was read for (the address may be ahead of it while a read is on its way).
  const [shownPage, setShownPage] = useState(filters.page);
  const [error, setError] = useState<string | undefined>(undefined);
  const [workflows, setWorkflows] = useState<string[]>([]);
  const [codebases, setCodebases] = useState<string[]>([]);
  const [cursor, setCursor] = useState(0);
  const [text, setText] = useState(filters.q ?? '');
  const search = useRef<HTMLInputElement>(null);
  const [selection, setSelection] = useState<ReadonlySet<string>>(new Set());
  // Bumped after an operation on the selected runs: a deleted run sends no event to read again on.
  const [reads, setReads] = useState(0);
  // Each run's current step as the last stream frame said, with the frame's number. A list read
  // that began before that frame may not hold it yet (node frames ask for no read): its answer
  // gets the step laid over it, until a read that began after the frame answers.
  const stepPatches = useRef(new Map<string, StepPatch>());
  const frames = useRef(0);
  const patchStep = (runId: string, step: Pick<DashboardRun, 'current_step_name' | 'current_step_status'>) => {
    stepPatches.current.set(runId, { at: ++frames.current, ...step });
    setPage((current) => current && { ...current, runs: current.runs.map((run) => (run.id === runId ? { ...run, ...step } : run)) });
  };
  useLiveRead(
    {
      load: () => {
        const at = frames.current;
        return getJson<DashboardPage>(withQuery('/api/dashboard/runs', dashboardQuery(filters, PAGE_SIZE))).then((answer) => ({ answer, at }));
      },
      show: ({ answer, at }) => {
        for (const [runId, patch] of stepPatches.current) if (patch.at <= at) stepPatches.current.delete(runId);
        setPage({ ...answer, runs: answer.runs.map((run) => withStepPatch(run, stepPatches.current.get(run.id))) });
        setShownPage(filters.page);
      },
      showError: setError,
      onFrame: (frame, reread) => {
        if (frame.type === 'workflow_status' && frame.runId) {
          setPage((current) =>
            current && {
              ...current,
              runs: current.runs.map((run) => (run.id === frame.runId ? ({ ...run, status: frame.status } as DashboardRun) : run)),
            },
          );
          reread();
        } else if (frame.type === 'workflow_event' && frame.eventType === 'workflow_queued') {
          // A new run, announced as it is queued (before any supervisor starts it).
          reread();
        } else if (frame.type === 'workflow_event' && (frame.eventType === 'provider_queued' || frame.eventType === 'global_queued') && frame.runId && frame.stepName) {
          const position = frame.data?.position;
          patchStep(frame.runId, { current_step_name: frame.stepName ?? null, current_step_status: typeof position === 'number' ? `queued #${position}` : 'queued' });
        } else if (frame.type === 'dag_node' && frame.runId && frame.nodeId) {
          patchStep(frame.runId, { current_step_name: frame.nodeId ?? null, current_step_status: frame.status ?? null });
        }
      },
    },
    [key, reads],
  );
  useEffect(() => setSelection(new Set()), [key, reads]);

  useEffect(() => {
    getJson<{ workflows: { workflow: { name: string } }[] }>('/api/workflows')
      .then((answer) => setWorkflows(answer.workflows.map((w) => w.workflow.name).sort()))
      .catch(() => setWorkflows([]));
    getJson<{ codebases: Codebase[] }>('/api/codebases')
      .then((answer) => setCodebases(answer.codebases.map((c) => c.id).sort()))
      .catch(() => setCodebases([]));
  }, []);

  // Back and forward change the address under the field.
  useEffect(() => setText(filters.q ?? ''), [filters.q]);
  // The text filter goes to the address a moment after typing stops.
  useEffect(() => {
    if ((filters.q ?? '') === text) return;
    const timer = setTimeout(() => navigate(hrefWith({ q: text, page: undefined }), { replace: true }), 250);
    return () => clearTimeout(timer);
  }, [text]);

  const runs = page?.runs ?? [];
  const open = (run: DashboardRun | undefined) => run && navigate(`/runs/${run.id}`);
  const toggle = (run: DashboardRun | undefined) =>
    run &&
    setSelection((current) => {
      const next = new Set(current);
      if (!next.delete(run.id)) next.add(run.id);
      return next;
    });
  // The selected runs as the page last read them (their status decides what can be done).
  const selected = runs.filter((run) => selection.has(run.id));
  const allTicked = runs.length > 0 && selected.length === runs.length;
  useKeys({
    x: () => toggle(runs[cursor]),
    j: () => setCursor((c) => Math.min(runs.length - 1, c + 1)),
    k: () => setCursor((c) => Math.max(0, c - 1)),
    Enter: () => open(runs[cursor]),
    '/': () => search.current?.focus(),
  });
  useEffect(() => {
    document.querySelector(`[data-row="${cursor}"]`)?.scrollIntoView({ block: 'nearest' });
  }, [cursor]);

  const workflowNames = [...new Set([...workflows, ...(filters.workflow ? [filters.workflow] : [])])];
  const codebaseIds = [...new Set([...codebases, ...(filters.codebase ? [filters.codebase] : [])])];
  const setFilter = (name: string) => (e: Event) =>
    navigate(hrefWith({ [name]: (e.target as HTMLInputElement | HTMLSelectElement).value, page: undefined }));
  const total = page?.total ?? 0;
  const first = total === 0 ? 0 : (shownPage - 1) * PAGE_SIZE + 1;
  const last = Math.min(total, (shownPage - 1) * PAGE_SIZE + runs.length);

  return (
    <main class="page runs-page">
      <nav class="status-tabs" aria-label="Status">
        {(['all', ...runStatuses] as const).map((status) => {
          const active = (filters.status ?? 'all') === status;
          return (
            <a
              key={status}
              class={active ? 'tab active' : 'tab'}
              aria-current={active ? 'page' : undefined}
              data-count-status={status}
              href={hrefWith({ status: status === 'all' ? undefined : status, page: undefined })}
            >
              {status} <span class="count">{page ? page.counts[status] : '…'}</span>
            </a>
          );
        })}
      </nav>
      <div class="filters">
        <label>
          Workflow
          <select
            name="workflow"
            value={filters.workflow ?? ''}
            onChange={(e) => navigate(hrefWith({ workflow: (e.target as HTMLSelectElement).value, page: undefined }))}
          >
            <option value="">all workflows</option>
            {workflowNames.map((name) => (
              <option key={name} value={name}>
                {name}
              </option>
            ))}
          </select>
        </label>
        <label>
          Codebase
          <select name="codebase" value={filters.codebase ?? ''} onChange={setFilter('codebase')}>
            <option value="">all codebases</option>
            {codebaseIds.map((id) => (
              <option key={id} value={id}>
                {id}
              </option>
            ))}
          </select>
        </label>
        <label>
          From
          <input type="date" name="from" value={filters.from ?? ''} max={filters.to} onChange={setFilter('from')} />
        </label>
        <label>
          To
          <input type="date" name="to" value={filters.to ?? ''} min={filters.from} onChange={setFilter('to')} />
        </label>
        <label class="grow">
          Search
          <input
            ref={search}
            type="search"
            name="q"
            placeholder="workflow name or message  ( / )"
            value={text}
            onInput={(e) => setText((e.target as HTMLInputElement).value)}
          />
        </label>
      </div>
      {error ? <p class="error-text">{error}</p> : null}
      <BulkBar
        selected={selected}
        onClear={() => setSelection(new Set())}
        onDone={() => setReads((n) => n + 1)}
      />
      <table class="runs">
        <thead>
          <tr>
            <th>
              <input
                type="checkbox"
                name="select-all"
                aria-label="Select every run on this page"
                checked={allTicked}
                onChange={() => setSelection(allTicked ? new Set() : new Set(runs.map((run) => run.id)))}
              />
            </th>
            <th>Status</th>
            <th>Workflow</th>
            <th>Message</th>
            <th>Node</th>
            <th>Progress</th>
            <th>Started</th>
            <th>Run</th>
          </tr>
        </thead>
        <tbody>
          {runs.map((run, i) => (
            <tr key={run.id} data-row={i} data-run={run.id} class={i === cursor ? 'cursor' : ''} onClick={() => setCursor(i)} onDblClick={() => open(run)}>
              <td>
                <input
                  type="checkbox"
                  name="select"
                  aria-label={`Select run ${shortId(run.id)}`}
                  checked={selection.has(run.id)}
                  onClick={(e) => e.stopPropagation()}
                  onChange={() => toggle(run)}
                />
              </td>
              <td>
                <StatusBadge status={run.status} />
              </td>
              <td>
                <a href={`/runs/${run.id}`}>{run.workflow_name}</a>
              </td>
              <td class="clip">{run.user_message}</td>
              <td class="clip">{run.current_step_name ? `${run.current_step_name} (${run.current_step_status ?? ''})` : ''}</td>
              <td>
                {run.agents_completed}/{run.total_steps}
                {run.agents_failed ? ` · ${run.agents_failed} failed` : ''}
              </td>
              <td title={run.created_at}>{ago(run.started_at ?? run.created_at)}</td>
              <td>
                <code>{shortId(run.id)}</code>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {page && runs.length === 0 ? <p class="muted">No run matches.</p> : null}
      <div class="pager">
        <span>
          {first}–{last} of {total}
        </span>
        <a class={shownPage > 1 ? 'btn' : 'btn disabled'} aria-disabled={shownPage <= 1} href={shownPage > 1 ? hrefWith({ page: String(shownPage - 1) }) : undefined}>
          Newer
        </a>
        <a class={last < total ? 'btn' : 'btn disabled'} aria-disabled={last >= total} href={last < total ? hrefWith({ page: String(shownPage + 1) }) : undefined}>
          Older
        </a>
      </div>
    </main>
  );
}
