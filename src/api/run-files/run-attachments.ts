import { cp, rename, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { ATTACHMENTS_FOLDER, type RunAttachment } from '../../store/schemas/run-attachment.js';
import type { ReceivedUpload } from './run-upload.js';
import { makePrivateDir } from '../../shared/private-files.js';

/**
 * Moves a checked upload into the run's `$ATTACHMENTS_DIR` (`$ARTIFACTS_DIR/attachments`) before
 * the run row exists, so the supervisor never starts a run whose files are not there yet. Returns
 * what `metadata.attachments` records, and how to take it back if the run is then not created.
 */
export async function placeAttachments(
  upload: ReceivedUpload,
  artifactsDir: string,
  /** The folder that is the new run's alone (its artifacts, or its whole run folder), removed by `undo`. */
  ownFolder: string,
): Promise<{ attachments: RunAttachment[]; undo: () => Promise<void> }> {
  await moveUpload(upload, join(artifactsDir, ATTACHMENTS_FOLDER));
  const attachments = upload.files.map((file) => ({
    name: file.name,
    original_name: file.originalName,
    path: `${ATTACHMENTS_FOLDER}/${file.name}`,
    size: file.size,
    mime_type: file.mimeType,
  }));
  // The run id is new, so its folder holds nothing but what was just placed there.
  return { attachments, undo: () => rm(ownFolder, { recursive: true, force: true }) };
}

/** Moves an upload's folder to `target` (which must not exist yet); its parent is created. */
export async function moveUpload(upload: Pick<ReceivedUpload, 'dir'>, target: string): Promise<void> {
  await makePrivateDir(dirname(target));
  try {
    await rename(upload.dir, target);
  } catch (err) {
    // A home whose workspaces folder is on another disk than its tmp folder: copy, then remove.
    if ((err as NodeJS.ErrnoException).code !== 'EXDEV') throw err;
    await cp(upload.dir, target, { recursive: true, errorOnExist: true, force: false });
    await rm(upload.dir, { recursive: true, force: true });
  }
}
