// The thread entry of the attempt-closer test: the real thread task (built, from dist/) over the
// built-in worker kinds plus the test's `die` kind. CommonJS, as the real task-entry.cts.
let task;
module.exports = async function runTask(input) {
  if (!task) {
    const [{ createThreadTask }, { workerKindTable }, { dieWorkerKind }] = await Promise.all([
      import('../../../dist/worker/thread/task.js'),
      import('../../../dist/worker/nodes/worker-kinds.js'),
      import('./worker-kind.mjs'),
    ]);
    task = createThreadTask(workerKindTable([dieWorkerKind]));
  }
  return task(input);
};
