import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { layerSpecSchema, type ModelLayer } from '../../models/model-layers.js';
import { CairnError } from '../../shared/errors.js';
import { describeIssue } from '../loading/issue-text.js';
import { projectFolders } from '../catalog/locations.js';
import { parseYamlData, yamlErrorHeadline } from '../loading/yaml-data.js';

/**
 * The model layers config files hold: the install's config file and a repository's
 * `.cairn/config.yaml`, read into the layers of the model-binding language (models/model-layers.ts).
 */

const fileLayerSchema = z.looseObject({
  defaultAssistant: z.string().trim().min(1).optional(),
  assistant: z.string().trim().min(1).optional(),
  assistants: z.record(z.string(), z.looseObject({ model: z.string().trim().min(1).optional() })).optional(),
  tiers: z.record(z.string(), layerSpecSchema).optional(),
  aliases: z.record(z.string(), layerSpecSchema).optional(),
});

/** The model keys of a config file's parsed data; throws CONFIG_INVALID naming the file. */
export function modelLayerOf(data: unknown, file: string): ModelLayer {
  const parsed = fileLayerSchema.safeParse(data ?? {});
  if (!parsed.success) {
    throw new CairnError('CONFIG_INVALID', `${file}: ${parsed.error.issues.map(describeIssue).join('; ')}`);
  }
  const { defaultAssistant, assistant, assistants, tiers, aliases } = parsed.data;
  const layer: ModelLayer = {};
  const chosen = assistant ?? defaultAssistant;
  if (chosen !== undefined) layer.defaultAssistant = chosen;
  if (assistants) {
    layer.assistants = Object.fromEntries(Object.entries(assistants).map(([id, a]) => [id, a.model === undefined ? {} : { model: a.model }]));
  }
  if (tiers) layer.tiers = tiers;
  if (aliases) layer.aliases = aliases;
  return layer;
}

function readYamlFile(path: string): { found: false } | { found: true; data: unknown } {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return { found: false };
  }
  try {
    return { found: true, data: parseYamlData(text) };
  } catch (err) {
    throw new CairnError('CONFIG_INVALID', `${path}: YAML parse error: ${yamlErrorHeadline(err)}; fix the file by hand`);
  }
}

/**
 * The install layer, read now (a PATCH of the file applies to the next run without a restart).
 * `envDefaultAssistant` (CAIRN_DEFAULT_ASSISTANT) wins over the file's `defaultAssistant`, as at start.
 */
export function readInstallModelLayer(configPath: string, envDefaultAssistant?: string): ModelLayer {
  const read = readYamlFile(configPath);
  const layer = read.found ? modelLayerOf(read.data, configPath) : {};
  return envDefaultAssistant ? { ...layer, defaultAssistant: envDefaultAssistant } : layer;
}

/**
 * The repository layer of the checkout at `cwd`: `.cairn/config.yaml`, else `.archon/config.yaml`
 * (`assistant`, `assistants`, `tiers`, `aliases`). Read-only: Cairn never writes it.
 */
export function readRepositoryModelLayer(cwd: string | undefined | null): ModelLayer | undefined {
  if (!cwd) return undefined;
  for (const folder of projectFolders) {
    const path = join(cwd, folder, 'config.yaml');
    const read = readYamlFile(path);
    if (read.found) return modelLayerOf(read.data, join(folder, 'config.yaml'));
  }
  return undefined;
}
