import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { TempHome } from '../helpers/temp-home.js';

/** A real project directory, removed with the home. */
export async function makeProject(home: TempHome): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'cairn-project-'));
  home.defer(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

/** Writes `text` at `relative` under `root`, creating folders. */
export async function writeAt(root: string, relative: string, text: string): Promise<string> {
  const path = join(root, relative);
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, text);
  return path;
}

/** A one-node bash workflow as YAML. */
export function bashYaml(name: string, description = `The ${name} workflow`, command = 'echo hi'): string {
  return `name: ${name}\ndescription: ${description}\nnodes:\n  - id: a\n    bash: ${JSON.stringify(command)}\n`;
}

/** A workflow the bundled set ships (`workflows/assist.yaml`). */
export const BUNDLED_WORKFLOW = 'assist';
