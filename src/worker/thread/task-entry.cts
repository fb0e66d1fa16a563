/**
 * The file Piscina loads in each worker thread: CommonJS on purpose. Piscina `require()`s its
 * task file first, and Node 20 then loads an ES module through its require(esm) path, which
 * aborted whole processes now and then (`v8::Module::IsGraphAsync must be used on an
 * instantiated module`) when a thread started while modules were still loading. Required as
 * CommonJS, this file reaches the thread's ES modules through a plain dynamic `import()`.
 */
async function runTask(input: unknown): Promise<unknown> {
  const thread = (await import('./task.js')) as { default: (input: unknown) => Promise<unknown> };
  return thread.default(input);
}

export = runTask;
