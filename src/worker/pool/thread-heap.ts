import { setFlagsFromString } from 'node:v8';

/**
 * The young generation of each worker thread, in MB (`resourceLimits.maxYoungGenerationSizeMb`;
 * V8 makes it three semi-spaces, so about 5 MB each).
 *
 * The supervisor runs with `--max-semi-space-size=1` (launcher.ts), which keeps its main thread
 * small while runs wait. A provider stream allocates fast (SDK objects, web streams, events), so
 * a thread holding 32 of them with 1 MB semi-spaces ran about 180 scavenges a second, which
 * delayed every stream on it. With 16 MB it runs 25-35. Measured with 1000 prompts at limit 32
 * (bench/ai-nodes.ts): the supervisor's CPU per node fell from 0.73-0.77 ms to 0.56-0.64. The
 * ratio to the ideal rose from 0.59-0.65 to 0.68-0.70. The supervisor's peak RSS over a
 * 10,000-node fan-out grows by about 13 MiB. 1000 paused runs still add +8 MiB, since the main
 * thread keeps its 1 MB. 32 MB saved a little more CPU for twice that memory. 8 MB gained less.
 */
export const THREAD_YOUNG_GENERATION_MB = 16;

/**
 * V8 applies a process's `--max-semi-space-size` to every isolate it creates afterwards, and the
 * flag wins over a Worker's `resourceLimits`. The main isolate read it when it started and keeps
 * it. Setting it back to 0 (V8's "unset") just before threads start lets each thread's own
 * limit apply. Flags like this one are read only when a heap is configured, so nothing running
 * changes.
 */
export function letThreadsSizeTheirOwnHeaps(): void {
  setFlagsFromString('--max-semi-space-size=0');
}
