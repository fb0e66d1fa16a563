/** A `bash:` or `script:` node: its body runs on a worker thread (worker/nodes/exec/). */
export interface ExecAction {
  type: 'exec';
  runtime: 'sh' | 'bun' | 'uv';
  legacyType: 'bash' | 'script';
  /** The body before substitution. */
  source: string;
  deps: readonly string[];
  timeoutMs: number;
}

export const DEFAULT_EXEC_TIMEOUT_MS = 120_000;

/** The action of a shell body written inline (`bash:`): a loop's body, its `until_bash`, a gate's rework. */
export function bashAction(source: string, timeoutMs = DEFAULT_EXEC_TIMEOUT_MS): ExecAction {
  return { type: 'exec', runtime: 'sh', legacyType: 'bash', source, deps: [], timeoutMs };
}
