import { mkdir, readdir, rm, rmdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { geminiSettings } from './settings.js';

/**
 * The GEMINI_CLI_HOME of one node of a run: the CLI's settings (settings.ts), the node's
 * `systemPrompt` as the CLI's global context file, and the sessions the CLI keeps, so a retry
 * can continue one.
 *
 * The CLI guards its registry files with lock folders (`projects.json.lock`) and can exit
 * between taking one and giving it back; the next CLI in the same home then waits until the
 * lock is 10 s old, and longer than a first-event watchdog. A node's attempts never overlap
 * (one attempt per node at a time, its process group gone before the next starts), so any lock
 * found before an attempt starts was left by an earlier one and is removed.
 */

/** What one attempt writes into the home besides the fixed settings. */
export interface GeminiHomeContents {
  settings: Record<string, unknown>;
  systemPrompt?: string;
}

/**
 * The file the CLI reads as global context (`~/.gemini/GEMINI.md`, here under GEMINI_CLI_HOME)
 * and adds to its system instruction: the one way to add text to the CLI's own instructions
 * without replacing them (GEMINI_SYSTEM_MD replaces them whole).
 */
const CONTEXT_FILE = 'GEMINI.md';

/** Makes `home` ready for one attempt of its node. */
export async function prepareGeminiHome(home: string, contents: GeminiHomeContents = { settings: geminiSettings() }): Promise<void> {
  const dotGemini = join(home, '.gemini');
  await mkdir(dotGemini, { recursive: true });
  await writeFile(join(dotGemini, 'settings.json'), JSON.stringify(contents.settings, null, 2));
  const contextFile = join(dotGemini, CONTEXT_FILE);
  if (contents.systemPrompt !== undefined && contents.systemPrompt !== '') await writeFile(contextFile, escapeImports(contents.systemPrompt));
  else await rm(contextFile, { force: true });
  for (const entry of await readdir(dotGemini, { withFileTypes: true })) {
    if (!entry.isDirectory() || !entry.name.endsWith('.lock')) continue;
    // A lock folder is empty; rmdir (not rm -r) leaves anything else alone.
    await rmdir(join(dotGemini, entry.name)).catch(() => undefined);
  }
}

/**
 * After an attempt: the settings go back to the fixed part, so values an attempt wrote (an MCP
 * server's environment, which may hold a token) do not stay in the node's home after it ran.
 */
export async function scrubGeminiHome(home: string): Promise<void> {
  await writeFile(join(home, '.gemini', 'settings.json'), JSON.stringify(geminiSettings(), null, 2)).catch(() => undefined);
}

/**
 * The CLI reads `@<path>` at the start of a word in a context file as an import of that file
 * (and writes a comment in its place when it cannot). A zero-width space before such an `@`
 * keeps the text as written: the CLI only reads an `@` after whitespace or at the start.
 */
export function escapeImports(text: string): string {
  return text.replace(/(^|[ \t\r\n])@/g, '$1\u200b@');
}
