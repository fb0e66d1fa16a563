import { mkdir, readdir, rmdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * The GEMINI_CLI_HOME of one node of a run: the CLI's settings (API-key auth, no auto-update,
 * no usage statistics) and the sessions it keeps, so a retry can continue one.
 *
 * The CLI guards its registry files with lock folders (`projects.json.lock`) and can exit
 * between taking one and giving it back; the next CLI in the same home then waits until the
 * lock is 10 s old, and longer than a first-event watchdog. A node's attempts never overlap
 * (one attempt per node at a time, its process group gone before the next starts), so any lock
 * found before an attempt starts was left by an earlier one and is removed.
 */

const SETTINGS = {
  security: { auth: { selectedType: 'gemini-api-key' } },
  general: { disableAutoUpdate: true, disableUpdateNag: true },
  privacy: { usageStatisticsEnabled: false },
};

/** Makes `home` ready for one attempt of its node. */
export async function prepareGeminiHome(home: string): Promise<void> {
  const dotGemini = join(home, '.gemini');
  await mkdir(dotGemini, { recursive: true });
  await writeFile(join(dotGemini, 'settings.json'), JSON.stringify(SETTINGS, null, 2));
  for (const entry of await readdir(dotGemini, { withFileTypes: true })) {
    if (!entry.isDirectory() || !entry.name.endsWith('.lock')) continue;
    // A lock folder is empty; rmdir (not rm -r) leaves anything else alone.
    await rmdir(join(dotGemini, entry.name)).catch(() => undefined);
  }
}
