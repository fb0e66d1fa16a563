import type { ProviderChunk } from '../provider-adapter.js';

/** What one run of a CLI learned about the session it was asked to resume, known by its end. */
export interface ResumeSeen {
  sessionNotFound: boolean;
}

/** One run of a CLI, resuming `resume` when given, that sets `seen` before its end chunk. */
export type ResumableRun = (resume: string | undefined, seen: ResumeSeen) => AsyncIterable<ProviderChunk>;

/**
 * An attempt that may continue `resume` (the session its node's failed attempt left). The CLI
 * is run once asked to resume it; when it says it does not know that session (another machine,
 * a cleared session folder), it is run again from a fresh session. The end chunk says which:
 * `sessionOrigin: resumed`, or `resume-failed-cold`; with nothing to resume it says nothing
 * (fresh). A run stopped by its signal is never run again.
 */
export async function* resumeOrCold(resume: string | undefined, signal: AbortSignal, run: ResumableRun): AsyncGenerator<ProviderChunk> {
  if (resume === undefined) {
    yield* run(undefined, { sessionNotFound: false });
    return;
  }
  const first: ResumeSeen = { sessionNotFound: false };
  let lost = false;
  for await (const chunk of run(resume, first)) {
    if (chunk.type !== 'end') yield chunk;
    else if (first.sessionNotFound && !signal.aborted) lost = true;
    else yield { ...chunk, sessionOrigin: 'resumed' };
  }
  if (!lost) return;
  for await (const chunk of run(undefined, { sessionNotFound: false })) {
    yield chunk.type === 'end' ? { ...chunk, sessionOrigin: 'resume-failed-cold' } : chunk;
  }
}
