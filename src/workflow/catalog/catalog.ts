import { readFile } from 'node:fs/promises';
import { CairnError } from '../../shared/errors.js';
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
import { CatalogThread, defaultThreadFile } from './catalog-thread-client.js';
import { entryOf } from './lookup-entry.js';
import type { ListedFile } from './list-files.js';
import { defaultLocations, type CatalogLocations } from './locations.js';
import type { ConfigFileCache } from '../project/project-config.js';
import { validateWorkflowDefinition, type ValidationResult } from '../checks/validate-definition.js';
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
 *
 * The `…Async` methods are the API's: when the compiled thread entry is there, the work that
 * grows with a workflow's size (reading, YAML parsing, validating, writing) runs on a worker
 * thread with caches of its own, and this side keeps only the finished discovery per project.
 * A 10,000-node file takes about 0.2 s to parse and check (js-yaml, then the checks);
 * on the thread, the API keeps answering meanwhile. The sync methods (the CLI's) always work
 * in-process.
 */

export interface CatalogQuery {
  /** The project directory; without it only home and bundled workflows are visible. */
  cwd?: string | undefined;
}

/** The query of a save or delete: the project, and `source` (project or global). */
export type SourceQuery = CatalogQuery & { source?: string | undefined };

export interface SavedWorkflow {
  workflow: WorkflowEntry['workflow'];
  filename: string;
  source: WritableSource;
  parseWarnings?: string[];
}

export interface CatalogOptions {
  /** The compiled `catalog-thread.js` the `…Async` methods run on; null: in-process. Default: the
   * one beside this file, when there is one (running from sources, there is not). */
  threadFile?: string | null | undefined;
}

/** A project's discovery and the fingerprint of the files it was made from. */
export interface CatalogSnapshot {
  fingerprint: string;
  discovery: Discovery;
}

export class WorkflowCatalog {
  private readonly files = new Map<string, { key: string; value: ParsedFile }>();
  private readonly discoveries = new Map<string, CatalogSnapshot>();
  private readonly inFlight = new Map<string, Promise<Discovery>>();
  private readonly configs: ConfigFileCache = new Map();
  private readonly thread: CatalogThread<WorkflowCatalog> | undefined;

  constructor(
    readonly locations: CatalogLocations,
    options: CatalogOptions = {},
  ) {
    const threadFile = options.threadFile === undefined ? defaultThreadFile() : options.threadFile;
    this.thread = threadFile ? new CatalogThread(threadFile, locations) : undefined;
  }

  /** A catalog of `home` with the package's bundled workflows and commands. */
  static forHome(home: string, options: CatalogOptions = {}): WorkflowCatalog {
    return new WorkflowCatalog(defaultLocations(home), options);
  }

  /** `list`, off the event loop. */
  async listAsync(query: CatalogQuery = {}): Promise<DiscoveryResult> {
    return (await this.discoverAsync(query.cwd)).result;
  }

  /** `get`, off the event loop. */
  async getAsync(name: string, query: CatalogQuery = {}): Promise<WorkflowEntry> {
    return entryOf(await this.discoverAsync(query.cwd), name);
  }

  /** `validate`, off the event loop. */
  async validateAsync(definition: unknown, query: CatalogQuery = {}): Promise<ValidationResult> {
    return this.thread ? this.thread.call('validate', definition, query) : this.validate(definition, query);
  }

  /** `save`, off the event loop. */
  async saveAsync(name: string, definition: unknown, query: SourceQuery, text?: string): Promise<SavedWorkflow> {
    return this.thread ? this.thread.call('save', name, definition, query, text) : this.save(name, definition, query, text);
  }

  /**
   * The text of the file that declares `name` (the one `get` answers with), as it is on disk:
   * comments, layout and `include:` as written. The errors are `get`'s.
   */
  async fileTextAsync(name: string, query: CatalogQuery = {}): Promise<{ entry: WorkflowEntry; text: string }> {
    const discovery = await this.discoverAsync(query.cwd);
    const entry = entryOf(discovery, name);
    const owner = discovery.owners.get(name) ?? discovery.unnamed.get(name);
    const text = await readFile(owner!.file.path, 'utf8').catch((err: Error) => {
      throw new CairnError('WORKFLOW_NOT_FOUND', `Workflow not found: ${name} (its file ${entry.filename} could not be read: ${err.message})`);
    });
    return { entry, text };
  }

  /** `delete`, off the event loop. */
  async deleteAsync(name: string, query: SourceQuery): Promise<ReturnType<WorkflowCatalog['delete']>> {
    return this.thread ? this.thread.call('delete', name, query) : this.delete(name, query);
  }

  /** `declares`, off the event loop. */
  async declaresAsync(name: string, query: SourceQuery): Promise<boolean> {
    return this.thread ? this.thread.call('declares', name, query) : this.declares(name, query);
  }

  /** With a thread: starts it and discovers `cwd` on it in the background, so the first request
   * finds the files parsed. In-process: nothing (the first request does the work). */
  async prefetch(query: CatalogQuery = {}): Promise<void> {
    if (this.thread) await this.discoverAsync(query.cwd);
  }

  /** Stops the worker thread, if one was started. */
  async close(): Promise<void> {
    await this.thread?.close();
  }

  /** `GET /api/workflows`: every visible workflow, the recommended names, and the files that did not load. */
  list(query: CatalogQuery = {}): DiscoveryResult {
    return this.discover(query.cwd).result;
  }

  /** One workflow by name (project, then home, then bundled). */
  get(name: string, query: CatalogQuery = {}): WorkflowEntry {
    return entryOf(this.discover(query.cwd), name);
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
      workflowIsInteractive: (n) =>
        n === ownName ? (definition as { interactive?: unknown }).interactive === true : discovery.drafts.get(n)?.interactive === true,
    });
  }

  /**
   * `PUT /api/workflows/{name}`: validates, then writes atomically. Throws CairnError on refusal.
   * With `text` (the YAML `definition` was parsed from), the file gets that text as it is, comments and all.
   */
  save(name: string, definition: unknown, query: SourceQuery, text?: string): SavedWorkflow {
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
    writeWorkflowFile(target.path, definition, text);
    const saved: SavedWorkflow = { workflow: result.workflow, filename: target.relative, source };
    if (result.warnings.length > 0) saved.parseWarnings = result.warnings;
    return saved;
  }

  /** `DELETE /api/workflows/{name}`: removes a user workflow; bundled and `.archon/` ones are refused. */
  delete(name: string, query: SourceQuery): { filename: string; source: WritableSource } {
    const source = parseWritableSource(query.source);
    const folders = sourceFolders(this.locations, source, query.cwd);
    const existing = filesDeclaring(folders.readable, name, (file) => this.cachedFile(file, () => readWorkflowFile(file.path)));
    const isBundled = this.discover(undefined).owners.get(name)?.file.scope.source === 'bundled';
    return { ...deleteWorkflowFiles(name, source, existing, isBundled), source };
  }

  /** Whether a file of the source's folders declares workflow `name`. */
  declares(name: string, query: SourceQuery): boolean {
    const folders = sourceFolders(this.locations, parseWritableSource(query.source), query.cwd);
    return filesDeclaring(folders.readable, name, (file) => this.cachedFile(file, () => readWorkflowFile(file.path))).length > 0;
  }

  /** The discovery for `cwd` and the fingerprint of its files (what the thread hands back). */
  snapshot(cwd: string | undefined): CatalogSnapshot {
    const listing = listWorkflowFiles(this.locations, cwd, this.configs);
    const key = cwd ?? '';
    const cached = this.discoveries.get(key);
    if (cached && cached.fingerprint === listing.fingerprint) return cached;
    const discovery = discoverWorkflows(listing, { get: (file, load) => this.cachedFile(file, load) });
    const snapshot = { fingerprint: listing.fingerprint, discovery };
    this.discoveries.set(key, snapshot);
    return snapshot;
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
    return this.snapshot(cwd).discovery;
  }

  /** Lists the files here (a readdir and a stat each); if any changed, discovers on the thread. */
  private async discoverAsync(cwd: string | undefined): Promise<Discovery> {
    if (!this.thread) return this.discover(cwd);
    const { fingerprint } = listWorkflowFiles(this.locations, cwd, this.configs);
    const key = cwd ?? '';
    const cached = this.discoveries.get(key);
    if (cached && cached.fingerprint === fingerprint) return cached.discovery;
    // Concurrent requests after a change share one discovery.
    const flightKey = `${key}\n${fingerprint}`;
    let flight = this.inFlight.get(flightKey);
    if (!flight) {
      flight = this.thread
        .call('snapshot', cwd)
        .then((snapshot) => {
          this.discoveries.set(key, snapshot);
          return snapshot.discovery;
        })
        .finally(() => this.inFlight.delete(flightKey));
      this.inFlight.set(flightKey, flight);
    }
    return flight;
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
