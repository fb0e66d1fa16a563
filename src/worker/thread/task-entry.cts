/**
 * The file Piscina loads in each worker thread: CommonJS on purpose. Piscina `require()`s its
 * task file first, and Node 20 then loads an ES module through its require(esm) path, which
 * aborted whole processes now and then (`v8::Module::IsGraphAsync must be used on an
 * instantiated module`) when a thread started while modules were still loading. Required as
 * CommonJS, this file reaches the thread's ES modules through a plain dynamic `import()`.
 */
type ThreadModule = { default: (input: unknown) => Promise<unknown> };

/** The thread's module, kept once loaded: an `import()` per task would cost a trip through the loader each time. */
let loading: Promise<ThreadModule> | undefined;

async function runTask(input: unknown): Promise<unknown> {
  // A load that fails is not kept: the next task tries again, as its own import() would.
  loading ??= (import('./task.js') as Promise<ThreadModule>).catch((err: unknown) => {
    loading = undefined;
    throw err;
  });
  return (await loading).default(input);
}

export = runTask;
