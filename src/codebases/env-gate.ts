import type { Codebase, EnvScan } from '../store/schemas/codebase.js';
import { scanEnvFiles } from './env-scan.js';

/**
 * Whether a run's runtimes may load the `.env*` files of the folder the run works in. Cairn never
 * reads them into node environments itself, but some runtimes do on their own: `bun` loads
 * `.env`, `.env.local` and `.env.<NODE_ENV>` from its working directory into `process.env`.
 */
export type EnvFilePolicy = 'load' | 'block';

export interface EnvGate {
  policy: EnvFilePolicy;
  /** The scan the decision was made on (names only); absent for a run without a codebase. */
  scan?: EnvScan;
}

/**
 * The env-leak gate, decided when a run starts: a run on a codebase whose working folder holds
 * `.env*` files with secret-looking keys (scanned again now, since files change after
 * registration) has them blocked unless the codebase's owner allowed them
 * (`PATCH /api/codebases/{id} {"allowEnvKeys": true}`). A scan that could not read a file blocks
 * too. A run without a codebase works where its user pointed it, as the user's own shell would.
 */
export async function decideEnvGate(codebase: Codebase | undefined, workingPath: string, now: () => string): Promise<EnvGate> {
  if (!codebase) return { policy: 'load' };
  const scan = await scanEnvFiles(workingPath, now);
  if (codebase.allow_env_keys || scan.status === 'clean') return { policy: 'load', scan };
  return { policy: 'block', scan };
}
