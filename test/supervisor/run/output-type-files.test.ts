import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { outputFileSegments, writeOutputTypeFiles } from '../../../src/supervisor/run/output-type-files.js';
import { loadWorkflowText } from '../../../src/workflow/loading/load-workflow.js';

/**
 * Where a node's output_type files go: a node path names them under `nodes/` only when each of
 * its segments is a node id (with a fan-out ordinal), so no path, however it was made, leaves the
 * folder or hides from the artifacts listing. The engine's side is in test/supervisor/nodes/exec-nodes.test.ts.
 */

const hostile = ['..', '../x', 'a/../../b', '.hidden', 'a/.x', '/abs', 'a//b', 'x/', 'a\\b', '', 'a[01]', 'a[-1]', '-x', 'a b', 'a%2Fb'];

describe('output_type file names', () => {
  it('the loader refuses a node id that could name a path', () => {
    for (const id of ['..', '../x', '.hidden', 'a/b', 'a\\b', 'x[1]']) {
      const loaded = loadWorkflowText(`name: w\ndescription: x\nnodes:\n  - id: '${id}'\n    bash: echo\n    output_type: t\n`);
      expect(loaded.ok, id).toBe(false);
    }
  });

  it('a node path is one folder per segment; a segment that is not a node id names nothing', () => {
    expect(outputFileSegments('build')).toEqual(['build']);
    expect(outputFileSegments('fix/test')).toEqual(['fix', 'test']);
    expect(outputFileSegments('each[12]/say')).toEqual(['each[12]', 'say']);
    for (const path of hostile) expect(outputFileSegments(path), path).toBeUndefined();
  });

  it('a segment too long for a file name is shortened, and two that start alike stay apart', () => {
    const [a] = outputFileSegments(`${'x'.repeat(250)}a`)!;
    const [b] = outputFileSegments(`${'x'.repeat(250)}b`)!;
    expect(a!.length).toBeLessThanOrEqual(200);
    expect(a).not.toBe(b);
  });
});

describe('writing them', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'cairn-output-type-'));
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it('refuses a hostile path before writing anything', async () => {
    const artifacts = join(dir, 'artifacts');
    await mkdir(artifacts);
    for (const path of hostile) {
      await expect(writeOutputTypeFiles({ artifactsDir: artifacts, path, outputType: 't', runId: 'r', output: 'o' }), path).rejects.toThrow(
        /cannot name a file under nodes\//,
      );
    }
    expect(await readdir(artifacts)).toEqual([]);
    expect(existsSync(join(dir, 'x'))).toBe(false);
  });
});
