import type { StressClient } from './stress-client.js';

/**
 * Tends the runs `cairn stress` started while it kills: approves each gate a run pauses at (as a
 * user would, through the API) and resumes a run that failed (POST …/resume, at most
 * `MAX_RESUMES` times a run), until every run has ended.
 */

const POLL_MS = 250;
const MAX_RESUMES = 3;

export interface RunTender {
  /** Starts tending these runs too. */
  track(runIds: readonly string[]): void;
  /** Resolves once every tracked run completed or was cancelled (or failed past its resumes), or at `deadline` (ms since the epoch). */
  settled(deadline: number): Promise<{ unsettled: string[] }>;
  stop(): void;
  gatesAnswered(): number;
  resumes(): { runId: string; error: string | null }[];
}

interface Tended {
  done: boolean;
  resumes: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Starts the tending loop over `client`. */
export function startRunTender(client: StressClient, onNote: (line: string) => void): RunTender {
  const runs = new Map<string, Tended>();
  const resumes: { runId: string; error: string | null }[] = [];
  let gates = 0;
  let stopped = false;

  const tend = async (runId: string, state: Tended) => {
    const { run } = await client.readRunHead(runId);
    if (run.status === 'completed' || run.status === 'cancelled') {
      state.done = true;
      return;
    }
    const approval = run.metadata.approval;
    if (run.status === 'paused' && approval?.type === 'approval' && approval.resolved === undefined) {
      if ((await client.operate(runId, 'approve')).ok) gates++;
      return;
    }
    if (run.status !== 'failed') return;
    if (state.resumes >= MAX_RESUMES) {
      state.done = true;
      return;
    }
    const answer = await client.operate(runId, 'resume');
    if (!answer.ok) return;
    state.resumes++;
    resumes.push({ runId, error: run.error });
    onNote(`resumed run ${runId} (it failed: ${(run.error ?? '').slice(0, 120)})`);
  };

  const loop = async () => {
    while (!stopped) {
      const open = [...runs].filter(([, state]) => !state.done);
      await Promise.all(open.map(([id, state]) => tend(id, state).catch((err: unknown) => onNote(`tending run ${id}: ${(err as Error).message}`))));
      await sleep(POLL_MS);
    }
  };
  const running = loop();

  return {
    track(runIds) {
      for (const id of runIds) if (!runs.has(id)) runs.set(id, { done: false, resumes: 0 });
    },
    async settled(deadline) {
      for (;;) {
        const open = [...runs].filter(([, state]) => !state.done).map(([id]) => id);
        if (open.length === 0 || Date.now() > deadline || stopped) return { unsettled: open };
        await sleep(POLL_MS);
      }
    },
    stop() {
      stopped = true;
      void running;
    },
    gatesAnswered: () => gates,
    resumes: () => [...resumes],
  };
}
