// The thread entry of the test that registers the test kind: the real thread task (built, from
// dist/) over the built-in worker kinds plus the test's, added without editing src/. CommonJS,
// as the real task-entry.cts, which tells why.
let task;
module.exports = async function runTask(input) {
  if (!task) {
    const [{ createThreadTask }, { workerKindTable }, { shoutWorkerKind }] = await Promise.all([
      import('../../../../dist/worker/thread/task.js'),
      import('../../../../dist/worker/nodes/worker-kinds.js'),
      import('./worker-kind.mjs'),
    ]);
    task = createThreadTask(workerKindTable([shoutWorkerKind]));
  }
  return task(input);
};
