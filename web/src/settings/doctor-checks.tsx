import { useState } from 'preact/hooks';
import { getJson } from '../api.js';

/** One check as `GET /api/system/doctor` answers it (`cairn doctor --json`'s object). */
interface DoctorCheck {
  id: string;
  name: string;
  status: 'ok' | 'warn' | 'failed';
  detail: string;
  next: string | null;
}

interface DoctorReport {
  home: string;
  ok: boolean;
  checks: DoctorCheck[];
}

type State = { state: 'idle' } | { state: 'running' } | { state: 'done'; report: DoctorReport } | { state: 'error'; message: string };

const statusText = { ok: 'ok', warn: 'warn', failed: 'FAILED' } as const;
const statusClass = { ok: 'status-completed', warn: 'status-paused', failed: 'status-failed' } as const;

/**
 * `cairn doctor`'s checks as the server runs them (`GET /api/system/doctor`), on demand only: each
 * run asks every provider CLI for its `--version`. Each check with its status, what was seen and
 * what to do next, as the server wrote them.
 */
export function DoctorChecks() {
  const [run, setRun] = useState<State>({ state: 'idle' });
  const start = () => {
    setRun({ state: 'running' });
    getJson<DoctorReport>('/api/system/doctor')
      .then((report) => setRun({ state: 'done', report }))
      .catch((err: Error) => setRun({ state: 'error', message: err.message }));
  };
  const count = (report: DoctorReport, status: DoctorCheck['status']) => report.checks.filter((c) => c.status === status).length;
  return (
    <div class="doctor" data-doctor={run.state}>
      <p class="muted">
        The checks of <code>cairn doctor</code>, run by the server with its own environment and home: the server, the database, the install key,
        the disk, the config, and each AI provider’s executable, credential (where it comes from, never the key) and server.
      </p>
      <button type="button" class="btn" data-action="run-doctor" disabled={run.state === 'running'} onClick={start}>
        {run.state === 'running' ? 'Checking…' : run.state === 'idle' ? 'Run checks' : 'Run checks again'}
      </button>
      {run.state === 'error' ? (
        <p class="result error" data-doctor-error>
          {run.message}
        </p>
      ) : null}
      {run.state === 'done' ? (
        <>
          <p class={run.report.ok ? 'result ok' : 'result error'} data-doctor-summary>
            {count(run.report, 'ok')} ok, {count(run.report, 'warn')} warn, {count(run.report, 'failed')} FAILED · home <code>{run.report.home}</code>
          </p>
          <table class="settings-table doctor-table">
            <thead>
              <tr>
                <th>Status</th>
                <th>Check</th>
                <th>Seen</th>
                <th>Next</th>
              </tr>
            </thead>
            <tbody>
              {run.report.checks.map((c) => (
                <tr key={c.id} data-check={c.id} data-check-status={c.status}>
                  <td>
                    <span class={`badge ${statusClass[c.status]}`}>{statusText[c.status]}</span>
                  </td>
                  <td>{c.name}</td>
                  <td data-check-detail>{c.detail}</td>
                  <td data-check-next>{c.next ?? ''}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      ) : null}
    </div>
  );
}
