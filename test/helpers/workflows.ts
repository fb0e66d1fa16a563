import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { TempHome } from './temp-home.js';

/** Writes a workflow file into the temp home's workflows folder (home scope). */
export async function writeHomeWorkflow(home: TempHome, name: string, yaml: string): Promise<void> {
  await mkdir(home.paths.workflows, { recursive: true });
  await writeFile(join(home.paths.workflows, `${name}.yaml`), yaml);
}

/**
 * `flaky`: one bash node that fails on an item starting with `bad` until `<flags>/fixed` exists,
 * logs each item it ran to `<flags>/ran.log` and prints `done-<item>` (the fan-out resume tests).
 */
export function writeFlakyItemWorkflow(home: TempHome, flags: string): Promise<void> {
  return writeHomeWorkflow(home, 'flaky', `name: flaky
description: fails on bad items until fixed
nodes:
  - id: work
    bash: 'case "$ARGUMENTS" in bad*) test -e "${flags}/fixed" || exit 1;; esac; echo "$ARGUMENTS" >> "${flags}/ran.log"; printf "%s" "done-$ARGUMENTS"'
`);
}

/** A workflow of `count` independent bash nodes running `command`. */
export function fanOutYaml(name: string, count: number, command: string): string {
  const nodes = Array.from({ length: count }, (_, i) => `  - id: n${i}\n    bash: ${JSON.stringify(command)}`);
  return `name: ${name}\ndescription: ${count} parallel nodes\nnodes:\n${nodes.join('\n')}\n`;
}

/** POSTs a run and returns its id and conversation. */
export async function startRun(
  url: string,
  name: string,
  body: Record<string, unknown> = {},
): Promise<{ runId: string; conversationId: string }> {
  const res = await fetch(`${url}/api/workflows/${name}/run`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`run ${name}: ${res.status} ${await res.text()}`);
  return (await res.json()) as { runId: string; conversationId: string };
}

export async function getRun(url: string, runId: string): Promise<{ run: Record<string, any>; events: Record<string, any>[] }> {
  const res = await fetch(`${url}/api/workflows/runs/${runId}`);
  if (!res.ok) throw new Error(`get run ${runId}: ${res.status} ${await res.text()}`);
  return (await res.json()) as { run: Record<string, any>; events: Record<string, any>[] };
}
