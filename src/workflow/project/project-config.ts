import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { describeIssue } from '../loading/issue-text.js';
import { projectFolders } from '../catalog/locations.js';
import { projectConfigWarnings } from './project-config-keys.js';
import { parseYamlData, yamlErrorHeadline } from '../loading/yaml-data.js';

/**
 * The workflow settings of a project's config file, `<cwd>/.cairn/config.yaml` (and, for users
 * moving over, `<cwd>/.archon/config.yaml`). Other keys of the file belong to other modules and
 * are left alone.
 *
 *   workflows:
 *     recommended: [plan-implement-review, fix-issue]   # shown first to users of this project
 *     bundled: false                                    # hide Cairn's bundled workflows here
 *   commands:
 *     bundled: false                                    # hide Cairn's bundled commands here
 *
 * The upstream spellings are accepted too: `recommendedWorkflows: [...]`,
 * `defaults.loadDefaultWorkflows`, `defaults.loadDefaultCommands`. Per setting, `.cairn/` wins
 * over `.archon/`, and inside one file Cairn's key wins over the upstream one. The listing also
 * carries the file's warnings (project-config-keys.ts): every key no part of Cairn reads.
 */

const projectConfigSchema = z.looseObject({
  workflows: z
    .looseObject({ recommended: z.array(z.string().trim().min(1)).optional(), bundled: z.boolean().optional() })
    .optional(),
  commands: z.looseObject({ bundled: z.boolean().optional() }).optional(),
  recommendedWorkflows: z.array(z.string().trim().min(1)).optional(),
  defaults: z
    .looseObject({ loadDefaultWorkflows: z.boolean().optional(), loadDefaultCommands: z.boolean().optional() })
    .optional(),
});

export interface ProjectWorkflowSettings {
  /** Recommended workflow names as declared (not yet filtered to discovered ones). */
  recommended: string[];
  includeBundledWorkflows: boolean;
  includeBundledCommands: boolean;
  /** Config files that could not be read, in the discovery error shape. */
  errors: { filename: string; error: string; errorType: 'parse_error' | 'validation_error' }[];
  /** Keys of the config files Cairn does not read, and values it cannot use: one message each, naming the file. */
  warnings: string[];
  /** Changes when either config file changes; part of discovery's cache key. */
  fingerprint: string;
}

type FileError = { error: string; errorType: 'parse_error' | 'validation_error' };

interface FileSettings {
  warnings: string[];
  recommended?: string[] | undefined;
  includeBundledWorkflows?: boolean | undefined;
  includeBundledCommands?: boolean | undefined;
}

/** Parsed config files by path, reused while the file's stat is unchanged. */
export type ConfigFileCache = Map<string, { key: string; read: FileSettings | FileError }>;

/**
 * Reads the workflow settings of the project at `cwd` (defaults when there is none). With a
 * cache, an unchanged file costs one stat: listings stay free of YAML parsing.
 */
export function readProjectWorkflowSettings(cwd: string | undefined, cache: ConfigFileCache = new Map()): ProjectWorkflowSettings {
  const settings: ProjectWorkflowSettings = {
    recommended: [],
    includeBundledWorkflows: true,
    includeBundledCommands: true,
    errors: [],
    warnings: [],
    fingerprint: '',
  };
  if (!cwd) return settings;
  const layers: FileSettings[] = [];
  for (const folder of projectFolders) {
    const filename = join(folder, 'config.yaml');
    const path = join(cwd, filename);
    let key: string;
    try {
      const stat = statSync(path);
      key = `${stat.mtimeMs}:${stat.size}:${stat.ino}`;
    } catch {
      continue;
    }
    settings.fingerprint += `${path}:${key};`;
    let read = cache.get(path)?.key === key ? cache.get(path)!.read : undefined;
    if (!read) {
      try {
        read = readSettings(readFileSync(path, 'utf8'), filename);
      } catch {
        continue;
      }
      cache.set(path, { key, read });
    }
    if ('error' in read) settings.errors.push({ filename, ...read });
    else {
      layers.push(read);
      settings.warnings.push(...read.warnings);
    }
  }
  // `layers` is in precedence order (.cairn first); the first layer that sets a value wins.
  settings.recommended = layers.find((l) => l.recommended)?.recommended ?? [];
  settings.includeBundledWorkflows = layers.find((l) => l.includeBundledWorkflows !== undefined)?.includeBundledWorkflows ?? true;
  settings.includeBundledCommands = layers.find((l) => l.includeBundledCommands !== undefined)?.includeBundledCommands ?? true;
  return settings;
}

function readSettings(text: string, filename: string): FileSettings | FileError {
  let raw: unknown;
  try {
    raw = parseYamlData(text) ?? {};
  } catch (err) {
    return { error: `YAML parse error: ${yamlErrorHeadline(err)}`, errorType: 'parse_error' };
  }
  const parsed = projectConfigSchema.safeParse(raw);
  if (!parsed.success) {
    return { error: parsed.error.issues.map(describeIssue).join('; '), errorType: 'validation_error' };
  }
  const config = parsed.data;
  return {
    warnings: projectConfigWarnings(raw, filename),
    recommended: config.workflows?.recommended ?? config.recommendedWorkflows,
    includeBundledWorkflows: config.workflows?.bundled ?? config.defaults?.loadDefaultWorkflows,
    includeBundledCommands: config.commands?.bundled ?? config.defaults?.loadDefaultCommands,
  };
}

/** Recommended names that were discovered, without duplicates, in declared order. */
export function filterRecommended(recommended: readonly string[], discovered: ReadonlySet<string>): string[] {
  return [...new Set(recommended)].filter((name) => discovered.has(name));
}
