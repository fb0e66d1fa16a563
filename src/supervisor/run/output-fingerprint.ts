import { createHash } from 'node:crypto';
import { previewOutput, type ReusableOutput } from '../../records/index.js';

/**
 * What "the same output" means when a resumed run decides whether a dependency that ran again
 * invalidates a cached dependant: the stored form of the output (the whole text up to 32 KiB;
 * beyond that the 32 KiB preview and the full byte length), so a prior output is compared from
 * its event row alone, without reading its spill file.
 */
export function fingerprintOfText(text: string): string {
  const preview = previewOutput(text);
  return preview.truncated ? `${digest(preview.text)}:${preview.originalBytes}` : digest(text);
}

/** The fingerprint of a prior success as its event row stores it. */
export function fingerprintOfPrior(prior: ReusableOutput): string {
  const persisted = prior.persisted;
  return persisted?.truncated ? `${digest(persisted.text)}:${persisted.originalBytes ?? ''}` : digest(prior.text);
}

function digest(text: string): string {
  return createHash('sha256').update(text).digest('base64url');
}
