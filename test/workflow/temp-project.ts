import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { WorkflowCatalog } from '../../src/workflow/catalog/catalog.js';

/**
 * A temp folder with a project (`cwd`), a Cairn home and a bundled folder of its own, so each
 * test controls every scope. `write('project:.cairn/workflows/a.yaml', text)` and friends.
 */
export interface TempProject {
  root: string;
  cwd: string;
  home: string;
  bundled: { workflows: string; commands: string };
  catalog: WorkflowCatalog;
  /** Writes `text` under a scope: `project:<path in cwd>`, `home:<path>` or `bundled:<workflows|commands>/<path>`. */
  write(where: string, text: string): string;
  close(): void;
}

export function makeTempProject(): TempProject {
  const root = mkdtempSync(join(tmpdir(), 'cairn-workflow-test-'));
  const cwd = join(root, 'project');
  const home = join(root, 'home');
  const bundled = { workflows: join(root, 'bundled', 'workflows'), commands: join(root, 'bundled', 'commands') };
  for (const dir of [cwd, home, bundled.workflows, bundled.commands]) mkdirSync(dir, { recursive: true });
  const bases: Record<string, string> = { project: cwd, home, bundled: join(root, 'bundled') };
  return {
    root,
    cwd,
    home,
    bundled,
    catalog: new WorkflowCatalog({ home, bundledWorkflowsDir: bundled.workflows, bundledCommandsDir: bundled.commands }),
    write(where, text) {
      const [scope, relative] = where.split(/:(.*)/s) as [string, string];
      const path = join(bases[scope]!, relative);
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, text);
      return path;
    },
    close() {
      rmSync(root, { recursive: true, force: true });
    },
  };
}

/** A minimal valid workflow file. */
export function workflowYaml(name: string, extra = '', body = 'prompt: hi'): string {
  return `name: ${name}\ndescription: ${name} does a thing\n${extra}nodes:\n  - id: a\n    ${body}\n`;
}
