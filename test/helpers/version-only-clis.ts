import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/** The variables that name each CLI provider's executable (src/doctor/provider-facts.ts). */
const BIN_ENVS = ['CLAUDE_BIN_PATH', 'CODEX_BIN_PATH', 'OPENCODE_BIN_PATH', 'PI_BIN_PATH', 'COPILOT_BIN_PATH', 'GEMINI_BIN_PATH'];

/**
 * An environment naming, for every CLI provider, a script in `dir` that answers `--version` at
 * once (`version-only-cli 1.0`). The doctor's checks (`cairn doctor`, `GET /api/system/doctor`)
 * ask each provider's CLI for its version, and the real ones installed next to Cairn take seconds
 * of CPU each to start; a test that is not about them runs the checks against this instead.
 */
export async function versionOnlyCliEnv(dir: string): Promise<Record<string, string>> {
  const cli = join(dir, 'version-only-cli');
  await writeFile(cli, '#!/bin/sh\necho "version-only-cli 1.0"\n', { mode: 0o755 });
  return Object.fromEntries(BIN_ENVS.map((name) => [name, cli]));
}
