import type { NewRunEvent } from './schemas/event.js';

/**
 * The files a run captured when it started (its copy): the command files and script files its
 * nodes name, as they read then, and the hash of its workflow's definition. A running, taken
 * over or resumed run executes this copy; only a resume with `reload` captures again.
 *
 * Each distinct content is stored once (by its hash), however many runs captured it.
 */
export type CapturedFileKind = 'command' | 'script';

export interface CapturedFile {
  kind: CapturedFileKind;
  /** As the node names it: a command's name, a script's name (`echo-args`, `tool.py`). */
  name: string;
  /** Where it was found when captured; null when it was not found. */
  path: string | null;
  /** The content's hash (shared/content-hash.ts); null when it was not found. */
  hash: string | null;
  /** The content; null when it was not found. */
  content: string | null;
}

export interface RunFileCapture {
  /** The hash of the definition the capture was made with (shared/content-hash.ts). */
  workflowHash: string;
  files: CapturedFile[];
}

export interface CaptureRunFiles extends RunFileCapture {
  runId: string;
  /** Appended in the same transaction (a reload's `workflow_reloaded`). */
  events?: readonly NewRunEvent[];
}

export interface RunFileStore {
  /**
   * Stores the run's capture, replacing any earlier one, with `events`, in one transaction;
   * contents no capture names any more are forgotten. False (nothing written) when the run is gone.
   */
  captureRunFiles(input: CaptureRunFiles): Promise<boolean>;
  /** The run's capture; undefined for a run that has none (it started before runs captured their files). */
  getRunFiles(runId: string): Promise<RunFileCapture | undefined>;
}
