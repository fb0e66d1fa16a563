import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { TempHome } from './temp-home.js';
import { waitFor } from './wait-for.js';

/**
 * Waits until a node of the run has created `name` in the run's working directory (its own, or
 * the run's scratch folder). `node_started` is committed just before a node's program runs, so
 * a test that must act while the program is running waits for a file the program writes.
 */
export async function waitForRunFile(
  home: TempHome,
  run: { id: string; working_path?: string | null },
  name: string,
): Promise<void> {
  const dir = run.working_path ?? home.paths.scratch(run.id);
  await waitFor(() => existsSync(join(dir, name)), { what: `${name} to appear in the run's working directory` });
}
