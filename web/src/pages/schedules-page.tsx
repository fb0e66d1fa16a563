import { useEffect, useState } from 'preact/hooks';
import { getJson, sendJson } from '../api.js';
import { ago, shortId, until } from '../format.js';
import { useKeys } from '../keyboard.js';
import { useLiveRead } from '../live-read.js';
import { ScheduleForm } from '../schedules/schedule-form.js';
import { schedulePath, type Schedule, type ScheduleFire, type ScheduleView } from '../schedules/types.js';

/** How many of a schedule's latest fires the list shows. */
const FIRES_SHOWN = 5;
/** The longest a timer may wait (setTimeout's limit is about 24.8 days). */
const LONGEST_WAIT = 2 ** 31 - 1;

/** Every schedule with its latest fires: the list, then each one's detail (a schedule deleted meanwhile is left out). */
async function loadSchedules(): Promise<Schedule[]> {
  const { schedules } = await getJson<{ schedules: ScheduleView[] }>('/api/schedules');
  const details = await Promise.all(schedules.map((s) => getJson<Schedule>(schedulePath(s.id)).catch(() => undefined)));
  return details.filter((s): s is Schedule => s !== undefined);
}

/**
 * `/schedules`: every schedule (`/api/schedules`), by name: its workflow, cron and zone, next due
 * time, whether it is paused, where it comes from, and its latest fires (the run each started, or
 * why none did); pause, resume, run now, and remove for one a user added; under them, the form
 * that adds one (schedule-form.tsx). Read again when a run's
 * status changes on the stream (a fire that starts a run), after each action, and once each next
 * due time has passed (a due time that starts no run sends no event).
 */
export function SchedulesPage() {
  const [schedules, setSchedules] = useState<Schedule[] | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  const [results, setResults] = useState<Record<string, { ok: boolean; message: string }>>({});
  const [cursor, setCursor] = useState(0);
  const [version, setVersion] = useState(0);
  useLiveRead(
    {
      load: loadSchedules,
      show: setSchedules,
      showError: setError,
      onFrame: (frame, reread) => {
        if (frame.type === 'workflow_status') reread();
      },
    },
    [version],
  );

  // Read again a second after the soonest next due time: what the fire loop decided shows.
  const soonest = Math.min(...(schedules ?? []).flatMap((s) => s.next_fire_times.slice(0, 1).map((t) => Date.parse(t))));
  useEffect(() => {
    if (!Number.isFinite(soonest)) return;
    const timer = setTimeout(() => setVersion((v) => v + 1), Math.min(LONGEST_WAIT, Math.max(0, soonest - Date.now()) + 1000));
    return () => clearTimeout(timer);
  }, [soonest]);

  const list = schedules ?? [];
  async function act(schedule: Schedule | undefined, action: 'pause' | 'resume' | 'run-now' | 'remove') {
    if (!schedule) return;
    if (action === 'remove' && !window.confirm(`Remove the schedule ${schedule.name} and its fire history (its runs stay)?`)) return;
    try {
      let message: string;
      if (action === 'remove') {
        await sendJson('DELETE', schedulePath(schedule.id));
        message = `Removed ${schedule.name}.`;
      } else if (action === 'run-now') {
        const answer = await sendJson<{ fire: ScheduleFire; runId: string | null }>('POST', `${schedulePath(schedule.id)}/run-now`);
        message = answer.runId ? `Started run ${shortId(answer.runId)}.` : `No run started: ${answer.fire.outcome}${answer.fire.reason ? ` (${answer.fire.reason})` : ''}.`;
      } else {
        await sendJson('POST', `${schedulePath(schedule.id)}/${action}`);
        message = action === 'pause' ? 'Paused: its due times pass without runs.' : 'Resumed: due times from now on run.';
      }
      setResults((r) => ({ ...r, [schedule.id]: { ok: true, message } }));
    } catch (err) {
      setResults((r) => ({ ...r, [schedule.id]: { ok: false, message: (err as Error).message } }));
    }
    setVersion((v) => v + 1);
  }
  useKeys({
    j: () => setCursor((c) => Math.min(list.length - 1, c + 1)),
    k: () => setCursor((c) => Math.max(0, c - 1)),
    p: () => list[cursor] && void act(list[cursor], list[cursor]!.paused ? 'resume' : 'pause'),
  });

  return (
    <main class="page schedules-page">
      <h2>Schedules</h2>
      {error ? <p class="error-text">{error}</p> : null}
      {schedules && list.length === 0 ? (
        <p class="muted">No schedule yet: add one below, declare one in a workflow's triggers:, or add one with cairn schedule add (docs/schedules.md).</p>
      ) : null}
      <ul class="schedules">
        {list.map((schedule, i) => {
          const result = results[schedule.id];
          const next = schedule.next_fire_times[0];
          return (
            <li key={schedule.id} data-schedule={schedule.name} class={i === cursor ? 'cursor' : ''} onClick={() => setCursor(i)}>
              <p>
                <strong class="schedule-name">{schedule.name}</strong> runs <a href={`/workflows/${encodeURIComponent(schedule.workflow_name)}`}>{schedule.workflow_name}</a>
                {schedule.codebase_id ? (
                  <>
                    {' '}
                    on <code>{schedule.codebase_id}</code>
                  </>
                ) : null}{' '}
                at <code>{schedule.cron}</code> ({schedule.timezone}) · overlap {schedule.overlap}
                {schedule.paused ? (
                  <>
                    {' '}
                    <span class="badge status-paused" data-paused="true">
                      paused
                    </span>
                  </>
                ) : null}
              </p>
              <p class="muted">
                {schedule.paused ? (
                  'No next due time while paused.'
                ) : next ? (
                  <>
                    Next:{' '}
                    <time class="next-due" dateTime={next} title={next}>
                      {new Date(next).toLocaleString()}
                    </time>{' '}
                    ({until(next)})
                  </>
                ) : (
                  'No next due time.'
                )}{' '}
                · {schedule.origin === 'workflow' ? <span data-origin="workflow">declared in the file of workflow {schedule.workflow_name}</span> : <span data-origin="api">added by a user</span>}
              </p>
              {schedule.fires.length > 0 ? (
                <ul class="fires">
                  {schedule.fires.slice(0, FIRES_SHOWN).map((fire) => (
                    <li key={fire.due_at} data-fire={fire.outcome}>
                      <span class={`badge fire-${fire.outcome}`}>{fire.outcome}</span> {fire.manual ? 'run now' : 'due'} {ago(fire.due_at)}
                      {fire.run_id ? (
                        <>
                          {' '}
                          · run <a href={`/runs/${encodeURIComponent(fire.run_id)}`}>{shortId(fire.run_id)}</a>
                        </>
                      ) : null}
                      {fire.reason ? <span class="muted reason"> · {fire.reason}</span> : null}
                    </li>
                  ))}
                </ul>
              ) : (
                <p class="muted">No fire yet.</p>
              )}
              <div class="schedule-actions">
                {schedule.paused ? (
                  <button type="button" class="btn" data-action="resume" onClick={() => void act(schedule, 'resume')}>
                    Resume
                  </button>
                ) : (
                  <button type="button" class="btn" data-action="pause" onClick={() => void act(schedule, 'pause')}>
                    Pause
                  </button>
                )}
                <button type="button" class="btn" data-action="run-now" onClick={() => void act(schedule, 'run-now')}>
                  Run now
                </button>
                {schedule.origin === 'api' ? (
                  <button type="button" class="btn btn-delete" data-action="remove" onClick={() => void act(schedule, 'remove')}>
                    Remove
                  </button>
                ) : (
                  <span class="muted">It lives in its workflow file: take the trigger out of the file to remove it.</span>
                )}
              </div>
              {result ? <p class={result.ok ? 'result ok' : 'result error'}>{result.message}</p> : null}
            </li>
          );
        })}
      </ul>
      <ScheduleForm onCreated={() => setVersion((v) => v + 1)} />
    </main>
  );
}
