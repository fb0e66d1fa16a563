import { CairnError } from '../shared/errors.js';
import { listCommands, loadCommand, type CommandEntry, type CommandLoad } from './commands.js';
import {
  discoverWorkflows,
  listWorkflowFiles,
  readWorkflowFile,
  type Discovery,
  type DiscoveryResult,
  type ParsedFile,
  type WorkflowEntry,
} from './discover-workflows.js';
import type { ListedFile } from './list-files.js';
import { defaultLocations, type CatalogLocations } from './locations.js';
import type { ConfigFileCache } from './project-config.js';
import { validateWorkflowDefinition, type ValidationResult } from './validate-definition.js';
import {
  assertSafeWorkflowName,
  chooseSavePath,
  deleteWorkflowFiles,
  filesDeclaring,
  parseWritableSource,
  sourceFolders,
  writeWorkflowFile,
  type WritableSource,
} from './workflow-files.js';

/**
 * The workflows and commands of one Cairn home, as the API and the CLI use them. Parsed files
 * are cached by path, mtime, size and inode, and a whole listing by the fingerprint of its
 * files: a repeated listing costs one directory read and one stat per file, and an edited
 * file is seen on the next call. Results are shared between calls: treat them as read-only.
 */

export interface CatalogQuery {
  /** The project directory; without it only home and bundled workflows are visible. */
  cwd?: string | undefined;
}

export interface SavedWorkflow {
  workflow: WorkflowEntry['workflow'];
  filename: string;
  source: WritableSource;
  parseWarnings?: string[];
}

export class WorkflowCatalog {
  private readonly files = new Map<string, { key: string; value: ParsedFile }>();
  private readonly discoveries = new Map<string, { fingerprint: string; discovery: Discovery }>();
  private readonly configs: ConfigFileCache = new Map();

  constructor(readonly locations: CatalogLocations) {}

  /** A catalog of `home` with the package's bundled workflows and commands. */
  static forHome(home: string): WorkflowCatalog {
    return new WorkflowCatalog(defaultLocations(home));
  }

  /** `GET /api/workflows`: every visible workflow, the recommended names, and the files that did not load. */
  list(query: CatalogQuery = {}): DiscoveryResult {
    return this.discover(query.cwd).result;
  }

  /** One workflow by name (project, then home, then bundled). */
  get(name: string, query: CatalogQuery = {}): WorkflowEntry {
    const owner = this.discover(query.cwd).owners.get(name);
    if (!owner) throw new CairnError('WORKFLOW_NOT_FOUND', `Workflow not found: ${name}`);
    if (!owner.entry) {
      throw new CairnError('WORKFLOW_INVALID', `Workflow file is invalid: ${owner.error?.error ?? 'unknown error'}`, {
        filename: owner.file.relative,
        source: owner.file.scope.source,
      });
    }
    return owner.entry;
  }

  /**
   * Validates a definition as it would load from the project at `cwd`: includes resolve, and
   * commands and child workflows must exist there.
   */
  validate(definition: unknown, query: CatalogQuery = {}): ValidationResult {
    const discovery = this.discover(query.cwd);
    const commands = new Set(this.commands(query).map((c) => c.name));
    const workflows = new Set([...discovery.owners.keys()]);
    const ownName = typeof (definition as { name?: unknown } | null)?.name === 'string' ? (definition as { name: string }).name : '';
    return validateWorkflowDefinition(definition, {
      resolveInclude: (n) => discovery.drafts.get(n),
      commandExists: (n) => commands.has(n),
      workflowExists: (n) => workflows.has(n) || n === ownName,
    });
  }

  /** `PUT /api/workflows/{name}`: validates, then writes atomically. Throws CairnError on refusal. */
  save(name: string, definition: unknown, query: CatalogQuery & { source?: string | undefined }): SavedWorkflow {
    const source = parseWritableSource(query.source);
    assertSafeWorkflowName(name);
    const folders = sourceFolders(this.locations, source, query.cwd);
    const declared = (definition as { name?: unknown } | null)?.name;
    if (typeof declared === 'string' && declared.trim() !== '' && declared.trim() !== name) {
      throw new CairnError('WORKFLOW_INVALID', `The definition is named '${declared.trim()}' but is saved as '${name}'; the two must match`);
    }
    const result = this.validate(definition, query);
    if (!result.valid) {
      throw new CairnError('WORKFLOW_INVALID', `Workflow definition is invalid: ${result.errors.join('; ')}`, {
        errors: result.errors,
      });
    }
    const existing = filesDeclaring(folders.readable, name, (file) => this.cachedFile(file, () => readWorkflowFile(file.path)));
    const target = chooseSavePath(folders.writeDir, name, existing);
    writeWorkflowFile(target.path, definition);
    const saved: SavedWorkflow = { workflow: result.workflow, filename: target.relative, source };
    if (result.warnings.length > 0) saved.parseWarnings = result.warnings;
    return saved;
  }

  /** `DELETE /api/workflows/{name}`: removes a user workflow; bundled and `.archon/` ones are refused. */
  delete(name: string, query: CatalogQuery & { source?: string | undefined }): { filename: string; source: WritableSource } {
    const source = parseWritableSource(query.source);
    const folders = sourceFolders(this.locations, source, query.cwd);
    const existing = filesDeclaring(folders.readable, name, (file) => this.cachedFile(file, () => readWorkflowFile(file.path)));
    const isBundled = this.discover(undefined).owners.get(name)?.file.scope.source === 'bundled';
    return { ...deleteWorkflowFiles(name, source, existing, isBundled), source };
  }

  /** `GET /api/commands`. */
  commands(query: CatalogQuery = {}): CommandEntry[] {
    return listCommands(this.locations, query.cwd, this.configs);
  }

  /** The prompt of a `command:` node. */
  loadCommand(name: string, query: CatalogQuery = {}): CommandLoad {
    return loadCommand(this.locations, query.cwd, name, this.configs);
  }

  private discover(cwd: string | undefined): Discovery {
    const listing = listWorkflowFiles(this.locations, cwd, this.configs);
    const key = cwd ?? '';
    const cached = this.discoveries.get(key);
    if (cached && cached.fingerprint === listing.fingerprint) return cached.discovery;
    const discovery = discoverWorkflows(listing, { get: (file, load) => this.cachedFile(file, load) });
    this.discoveries.set(key, { fingerprint: listing.fingerprint, discovery });
    return discovery;
  }

  private cachedFile(file: ListedFile, load: () => ParsedFile): ParsedFile {
    const key = `${file.mtimeMs}:${file.size}:${file.ino}`;
    const hit = this.files.get(file.path);
    if (hit && hit.key === key) return hit.value;
    const value = load();
    this.files.set(file.path, { key, value });
    return value;
  }
}
