import { readFileSync } from 'node:fs';
import { listFiles, isWorkflowFileName, type ListedFile } from './list-files.js';
import { finishLoading, parseWorkflowText, type LoadedWorkflow, type LoadErrorType, type ParsedText } from '../loading/load-workflow.js';
import type { ParsedDraft } from '../loading/parse-draft.js';
import type { WorkflowSource } from '../../shared/workflow-source.js';
import { workflowScopeDirs, type CatalogLocations, type ScopeDir } from './locations.js';
import { filterRecommended, readProjectWorkflowSettings, type ConfigFileCache } from '../project/project-config.js';
import { isPlainObject } from '../loading/unknown-keys.js';
import { parseYamlData } from '../loading/yaml-data.js';
import type { WorkflowDefinition, WorkflowDefinitionDraft } from '../schema/workflow-schema.js';

/**
 * Discovers the workflows visible from a project: every `*.yaml`/`*.yml` of the project, home
 * and bundled scopes. A file overrides a lower scope's file of the same name (`foo.yaml` in the
 * project hides the bundled `foo.yaml`); a workflow `name` declared in a higher scope hides the
 * same name below it; two files of one scope declaring one name are both dropped with an error.
 */

export interface WorkflowEntry {
  workflow: WorkflowDefinition;
  source: WorkflowSource;
  /** The file's path inside its scope folder, e.g. `review.yaml` or `team/review.yaml`. */
  filename: string;
  /** Omitted when the workflow is clean. */
  parseWarnings?: string[];
}

export interface DiscoveryError {
  filename: string;
  source: WorkflowSource;
  error: string;
  errorType: LoadErrorType;
}

export interface DiscoveryResult {
  /** Sorted by name. */
  workflows: WorkflowEntry[];
  /** The project's recommended names that were discovered, in declared order. */
  recommended: string[];
  errors: DiscoveryError[];
  /** Keys of the project's config files that Cairn does not read (or values it cannot use), one message each. */
  configWarnings: string[];
}

/** A discovered file and where it came from. */
export interface ScopedFile extends ListedFile {
  scope: ScopeDir;
}

/** What discovery knows per file, reused while the file's mtime and size are unchanged. */
export interface ParsedFile {
  parsed: ParsedText;
  /** The `name:` as written, even when the file does not load. */
  name: string | undefined;
}

export interface ParsedFileCache {
  get(file: ListedFile, load: () => ParsedFile): ParsedFile;
}

/** The file that owns a name: its entry when it loaded, else its error and each of its problems. */
export interface Owner {
  file: ScopedFile;
  entry: WorkflowEntry | undefined;
  error: DiscoveryError | undefined;
  /** Every problem of a file that did not load, one by one; [] when it loaded. */
  problems: string[];
}

/** Discovery's full state: the public result plus which file each name came from. */
export interface Discovery {
  result: DiscoveryResult;
  /** The file that owns each workflow name (loaded or not). */
  owners: Map<string, Owner>;
  /** Files that did not load and whose `name:` could not be read, by file name without extension,
   * so a lookup by that name reports the file's problems rather than "not found". */
  unnamed: Map<string, Owner>;
  /** Drafts by name, for resolving `include:`. */
  drafts: Map<string, WorkflowDefinitionDraft>;
}

const rank: Record<WorkflowSource, number> = { project: 0, global: 1, bundled: 2 };

/** The files discovery would read for `cwd`, after file-name overrides, and the settings' fingerprint. */
export function listWorkflowFiles(locations: CatalogLocations, cwd: string | undefined, configCache?: ConfigFileCache) {
  const settings = readProjectWorkflowSettings(cwd, configCache);
  const winners = new Map<string, ScopedFile>();
  for (const scope of workflowScopeDirs(locations, cwd, settings.includeBundledWorkflows)) {
    for (const file of listFiles(scope.dir, isWorkflowFileName)) {
      if (!winners.has(file.relative)) winners.set(file.relative, { ...file, scope });
    }
  }
  const files = [...winners.values()];
  const fingerprint = files.map((f) => `${f.path}:${f.mtimeMs}:${f.size}:${f.ino}`).join('|') + `#${settings.fingerprint}`;
  return { files, settings, fingerprint };
}

/** Reads and parses one workflow file (the cacheable first loading stage). */
export function readWorkflowFile(path: string): ParsedFile {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    const error = `Cannot read workflow file: ${reason}`;
    return { parsed: { ok: false, error, errors: [error], errorType: 'read_error' }, name: undefined };
  }
  const parsed = parseWorkflowText(text);
  return { parsed, name: parsed.ok ? (parsed.parsed.draft?.name ?? rawName(text)) : rawName(text) };
}

export function discoverWorkflows(
  listing: ReturnType<typeof listWorkflowFiles>,
  cache: ParsedFileCache,
): Discovery {
  const errors: DiscoveryError[] = [...listing.settings.errors.map((e) => ({ ...e, source: 'project' as const }))];
  const errorFor = (file: ScopedFile, error: string, errorType: LoadErrorType): DiscoveryError => ({
    filename: file.relative,
    source: file.scope.source,
    error,
    errorType,
  });

  const unnamed: Discovery['unnamed'] = new Map();
  const byName = new Map<string, { file: ScopedFile; parsed: ParsedFile }[]>();
  for (const file of listing.files) {
    const parsed = cache.get(file, () => readWorkflowFile(file.path));
    if (parsed.name === undefined) {
      const failed = parsed.parsed.ok ? finishCached(parsed.parsed.parsed, new Map()) : parsed.parsed;
      if (!failed.ok) {
        const error = errorFor(file, failed.error, failed.errorType);
        errors.push(error);
        const stem = fileStem(file.relative);
        if (!unnamed.has(stem)) unnamed.set(stem, { file, entry: undefined, error, problems: failed.errors });
      }
      continue;
    }
    byName.set(parsed.name, [...(byName.get(parsed.name) ?? []), { file, parsed }]);
  }

  const owners: Discovery['owners'] = new Map();
  const drafts = new Map<string, WorkflowDefinitionDraft>();
  const chosen: { name: string; file: ScopedFile; parsed: ParsedFile }[] = [];
  for (const [name, candidates] of byName) {
    const top = Math.min(...candidates.map((c) => rank[c.file.scope.source]));
    const owning = candidates.filter((c) => rank[c.file.scope.source] === top);
    if (owning.length > 1) {
      for (const c of owning) {
        const others = owning.filter((o) => o !== c).map((o) => `${o.file.scope.label}/${o.file.relative}`);
        const error = errorFor(c.file, `Duplicate workflow name '${name}' — also declared in ${others.join(', ')}`, 'validation_error');
        errors.push(error);
        owners.set(name, { file: c.file, entry: undefined, error, problems: [error.error] });
      }
      continue;
    }
    const owner = owning[0]!;
    chosen.push({ name, ...owner });
    if (owner.parsed.parsed.ok && owner.parsed.parsed.parsed.draft) drafts.set(name, owner.parsed.parsed.parsed.draft);
  }

  const workflows: WorkflowEntry[] = [];
  for (const { name, file, parsed } of chosen) {
    const loaded = parsed.parsed.ok
      ? finishCached(parsed.parsed.parsed, drafts)
      : { ...parsed.parsed, parseWarnings: [] };
    if (loaded.ok) {
      const entry: WorkflowEntry = { workflow: loaded.workflow, source: file.scope.source, filename: file.relative };
      if (loaded.parseWarnings.length > 0) entry.parseWarnings = loaded.parseWarnings;
      workflows.push(entry);
      owners.set(name, { file, entry, error: undefined, problems: [] });
    } else {
      const error = errorFor(file, loaded.error, loaded.errorType);
      errors.push(error);
      owners.set(name, { file, entry: undefined, error, problems: loaded.errors });
    }
  }

  workflows.sort((a, b) => compare(a.workflow.name, b.workflow.name));
  errors.sort((a, b) => compare(a.filename, b.filename));
  const names = new Set(workflows.map((w) => w.workflow.name));
  const recommended = filterRecommended(listing.settings.recommended, names);
  return { result: { workflows, recommended, errors, configWarnings: listing.settings.warnings }, owners, unnamed, drafts };
}

/**
 * Finished loads by parsed file. A load depends only on the parsed file and the drafts its
 * includes and its child workflows resolved to (drafts are cached per file too, so an unchanged one is the same
 * object): while those are the same, the result is, and editing one small file does not
 * re-validate every large workflow beside it.
 */
const finished = new WeakMap<ParsedDraft, { includes: [string, WorkflowDefinitionDraft | undefined][]; loaded: LoadedWorkflow }>();

function finishCached(parsed: ParsedDraft, drafts: ReadonlyMap<string, WorkflowDefinitionDraft>): LoadedWorkflow {
  const hit = finished.get(parsed);
  if (hit && hit.includes.every(([name, draft]) => drafts.get(name) === draft)) return hit.loaded;
  const includes: [string, WorkflowDefinitionDraft | undefined][] = [];
  const resolveInclude = (name: string) => {
    const draft = drafts.get(name);
    includes.push([name, draft]);
    return draft;
  };
  // A `workflow:` node naming an interactive workflow is refused when the parent loads; what it
  // read is kept with the includes, so a child that becomes interactive reloads the parent.
  const workflowIsInteractive = (name: string) => resolveInclude(name)?.interactive === true;
  const loaded = finishLoading(parsed, { resolveInclude, workflowIsInteractive });
  finished.set(parsed, { includes, loaded });
  return loaded;
}

/**
 * The `name:` of a file that did not load, so an override or a lookup still finds it. When the
 * YAML itself does not parse, a top-level `name: x` line is still read.
 */
function rawName(text: string): string | undefined {
  try {
    const raw: unknown = parseYamlData(text);
    return isPlainObject(raw) && typeof raw.name === 'string' && raw.name.trim() !== '' ? raw.name.trim() : undefined;
  } catch {
    const line = /^name:[ \t]*(?:"([^"\n]+)"|'([^'\n]+)'|([^\s#'"][^#\n]*?))[ \t]*(?:#.*)?$/m.exec(text);
    const name = (line?.[1] ?? line?.[2] ?? line?.[3])?.trim();
    return name ? name : undefined;
  }
}

/** `team/review.yaml` → `review`. */
function fileStem(relative: string): string {
  return (relative.split('/').pop() ?? relative).replace(/\.ya?ml$/i, '');
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
