import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { projectFolders } from './locations.js';

/**
 * The `worktree.enabled` setting of a project's config file (`<checkout>/.cairn/config.yaml`, or
 * `.archon/config.yaml` for users moving over; `.cairn/` wins):
 *
 *   worktree:
 *     enabled: false   # runs on this project work in the checkout itself, not in a worktree
 *
 * Other keys of the file belong to other modules. A file that does not parse says nothing here
 * (the workflow routes report it as a discovery error).
 */
const worktreeConfigSchema = z.looseObject({
  worktree: z.looseObject({ enabled: z.boolean().optional() }).optional(),
});

/** `true`/`false` as the project says; undefined when no config file sets it. */
export async function readProjectWorktreeEnabled(checkout: string): Promise<boolean | undefined> {
  for (const folder of projectFolders) {
    const text = await readFile(join(checkout, folder, 'config.yaml'), 'utf8').catch(() => undefined);
    if (text === undefined) continue;
    let raw: unknown;
    try {
      raw = parseYaml(text) ?? {};
    } catch {
      continue;
    }
    const enabled = worktreeConfigSchema.safeParse(raw).data?.worktree?.enabled;
    if (enabled !== undefined) return enabled;
  }
  return undefined;
}
