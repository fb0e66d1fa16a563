import { until } from '../format.js';
import type { Run } from '../types.js';

/** What `metadata.auto_resume` holds while a failed run waits out a provider's usage limit. */
interface ScheduledResume {
  at: string;
  nodes: string[];
  resume: number;
  of: number;
}

function scheduledOf(run: Run): ScheduledResume | undefined {
  const auto = run.metadata.auto_resume as Partial<ScheduledResume> | undefined;
  if (run.status !== 'failed' || typeof auto?.at !== 'string' || !Array.isArray(auto.nodes)) return undefined;
  return auto as ScheduledResume;
}

/**
 * A failed run that resumes by itself once its provider's usage limit resets (the workflow's
 * `auto_resume`, docs/runs.md): when, for which nodes, and which of its automatic resumes.
 * Resume on the action bar goes on at once instead.
 */
export function AutoResumeNote({ run }: { run: Run }) {
  const scheduled = scheduledOf(run);
  if (!scheduled) return null;
  return (
    <p class="auto-resume" data-auto-resume>
      Resumes by itself <time dateTime={scheduled.at} title={new Date(scheduled.at).toLocaleString()}>{until(scheduled.at)}</time>, once the
      usage limit of {scheduled.nodes.join(', ')} resets (automatic resume {scheduled.resume} of {scheduled.of}). Resume now to go on at once.
    </p>
  );
}
