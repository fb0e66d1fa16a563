import { existsSync, readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Job, JobKind } from '../../../src/store/schemas/job.js';
import { decodeJobResult, type ResumeRunResult } from '../../../src/store/schemas/job-results.js';
import type { Run, RunStatus } from '../../../src/store/schemas/run.js';
import { terminalRunStatuses } from '../../../src/store/schemas/run.js';
import { nodeTimeline, startSupervisor, type LooseEvent, type SupervisorHarness } from '../../helpers/supervisor.js';
import { makeTempHome, type TempHome } from '../../helpers/temp-home.js';
import { waitFor } from '../../helpers/wait-for.js';
import { writeHomeWorkflow } from '../../helpers/workflows.js';

/**
 * The supervisor's rooms (its job handlers and node handlers) under test without the API: a real
 * store (the home's SQLite file in a temp dir, opened as the supervisor opens it), a real
 * supervisor (claim loop, job runner, run registry, the scheduler its factory builds, the worker
 * pool over the built task file), and attempts the test scripts: bash nodes that do exactly
 * what the test says and, when held, wait for the test to let them go. Jobs are queued with the
 * store operations the API uses, and their result (the string each handler answers) is read
 * back from the job row, so a test asserts the handler's decision and what it recorded.
 */
export interface Room {
  home: TempHome;
  sup: SupervisorHarness;
  /** Creates a pending run (with its start job) of a workflow given as YAML; the supervisor starts it. */
  start(yaml: string, opts?: { workingPath?: string; metadata?: Record<string, unknown> }): Promise<Run>;
  /** Waits for the run to reach one of `statuses` (default: any terminal status). */
  settle(runId: string, statuses?: readonly RunStatus[]): Promise<Run>;
  /** Queues a job as the API does (enqueueJob) and waits for the supervisor to finish it. */
  job(kind: JobKind, runId: string, payload?: Record<string, unknown>): Promise<Job>;
  /** Answers the run's gate as the API does (requestGateDecision) and waits for the job to finish. */
  answer(runId: string, kind: 'approve_run' | 'reject_run', payload?: Record<string, unknown>): Promise<Job>;
  /** Asks for a resume as the API does (requestRunContinuation from failed or paused) and waits for the job. */
  resume(runId: string, payload?: Record<string, unknown>): Promise<Job>;
  /** Waits until the run is paused at an unanswered gate for the `n`-th time (1 by default). */
  pausedAtGate(runId: string, n?: number): Promise<Run>;
  /** The run's events (with their data, for reading the records). */
  events(runId: string): Promise<LooseEvent[]>;
  /** The run's node events as `type:node`, in order. */
  timeline(runId: string): Promise<string[]>;
  /** Waits until an event of `type` (at node `step`, when given) is in the run's log; returns it. */
  eventOf(runId: string, type: string, step?: string): Promise<LooseEvent>;
  /** A workflow in the home's catalog, for `workflow:` nodes to start. */
  workflow(name: string, yaml: string): Promise<void>;
  /** A scripted attempt: a bash body that says it started and waits until `release`. */
  held(name: string, output?: string): HeldScript;
}

export interface HeldScript {
  /** The node's bash body (a YAML double-quoted scalar's content). */
  bash: string;
  /** Resolves once the attempt's process is running. */
  started(): Promise<void>;
  /** The file that exists once it is running (for another node's body to wait on). */
  startedFile: string;
  /** Lets the attempt finish (printing its output). */
  release(): Promise<void>;
  /** How many times the body ran. */
  runs(): number;
}

/** A fresh home with a supervisor in it (settings from `env`); everything is closed by `room.home.close()`. */
export async function openRoom(opts: { limit?: number; id?: string; env?: Record<string, string> } = {}): Promise<Room> {
  const home = await makeTempHome();
  const sup = await startSupervisor(home, opts);
  const marks = join(home.home, 'marks');
  await mkdir(marks, { recursive: true });

  const jobDone = (id: number) =>
    waitFor(async () => {
      const job = await sup.store.getJob(id);
      return job?.status === 'done' ? job : undefined;
    }, { what: `job ${id} to be done` });

  const room: Room = {
    home,
    sup,
    start: (yaml, runOpts) => sup.createRun(yaml, runOpts),
    settle: (runId, statuses = terminalRunStatuses) => sup.waitForStatus(runId, statuses),
    async job(kind, runId, payload = {}) {
      const job = await sup.store.enqueueJob(kind, runId, payload);
      return jobDone(job.id);
    },
    async answer(runId, kind, payload = {}) {
      const queued = await sup.store.requestGateDecision({ runId, kind, payload });
      if (!queued.queued) throw new Error(`the ${kind} was refused: run is ${queued.run?.status}, open: ${queued.open ?? '-'}`);
      const job = (await sup.store.listRunJobs(runId)).filter((j) => j.kind === kind).at(-1)!;
      return jobDone(job.id);
    },
    async resume(runId, payload = {}) {
      const queued = await sup.store.requestRunContinuation({ runId, kind: 'resume_run', payload, fromStatuses: ['failed', 'paused'] });
      if (!queued.queued) throw new Error(`the resume was refused: run is ${queued.run?.status}`);
      return jobDone(queued.job.id);
    },
    pausedAtGate: (runId, n = 1) =>
      waitFor(async () => {
        const run = await sup.store.getRun(runId);
        if (run?.status !== 'paused' || run.metadata.approval?.resolved) return undefined;
        const pauses = (await sup.events(runId)).filter((e) => e.event_type === 'workflow_paused').length;
        return pauses === n ? run : undefined;
      }, { what: `run ${runId} to pause at its gate (pause ${n})` }),
    events: (runId) => sup.events(runId),
    timeline: async (runId) => nodeTimeline(await sup.events(runId)),
    eventOf: (runId, type, step) =>
      waitFor(async () => (await sup.events(runId)).find((e) => e.event_type === type && (step === undefined || e.step_name === step)), {
        what: `${type}${step ? ` of ${step}` : ''} in run ${runId}`,
      }),
    workflow: (name, yaml) => writeHomeWorkflow(home, name, yaml),
    held(name, output = name) {
      const base = join(marks, name);
      return {
        bash: `echo x >> '${base}.ran'; touch '${base}.started'; while [ ! -e '${base}.go' ]; do sleep 0.02; done; printf ${output}`,
        startedFile: `${base}.started`,
        started: () => waitFor(() => existsSync(`${base}.started`), { what: `${name} to start` }).then(() => undefined),
        release: () => writeFile(`${base}.go`, ''),
        runs: () => (existsSync(`${base}.ran`) ? readFileSync(`${base}.ran`, 'utf8').split('\n').filter(Boolean).length : 0),
      };
    },
  };
  return room;
}

/** Node events of one node (or path), in order, as `type` strings. */
export function typesAt(events: readonly LooseEvent[], step: string): string[] {
  return events.filter((e) => e.step_name === step && e.event_type.startsWith('node_')).map((e) => e.event_type);
}

/** The last run-level event (workflow_*) of a run's log. */
export function lastRunEvent(events: readonly LooseEvent[]): LooseEvent | undefined {
  return events.filter((e) => e.event_type.startsWith('workflow_')).at(-1);
}

/** A `resume_run` job's typed result, read back from its row as the API reads it. */
export function resumeResult(job: Job): ResumeRunResult {
  return decodeJobResult('resume_run', job.result ?? '');
}
