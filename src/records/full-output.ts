import { readFile } from 'node:fs/promises';
import type { NodeSnapshot } from './run-snapshot.js';

/** The whole output of a finished node: the stored preview, or its spill file when it was cut. */
export async function fullOutput(snap: NodeSnapshot): Promise<string> {
  const reusable = snap.reusable!;
  const spill = reusable.persisted?.spillPath;
  if (spill) {
    const text = await readFile(spill, 'utf8').catch(() => undefined);
    if (text !== undefined) return text;
  }
  return reusable.text;
}
