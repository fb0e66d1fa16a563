/**
 * The architecture's layers, written once and checked by `npm run depcheck` (part of `npm test`).
 * docs/architecture.md ("Layers") shows the same picture in prose; change them together.
 *
 * Every top folder of src/ lists the folders it may import (besides itself). A folder is never
 * allowed to name one above it, so imports point down. Type-only imports count: a type in the
 * wrong room is a dependency of the design even when it leaves nothing in the JavaScript.
 */

/** Each top folder of src/ and the folders it may use, lowest first. */
const layers = {
  // What every process uses; imports none of our folders.
  shared: [],
  // The model-binding language: model specs, tiers and aliases, effort, the layers of model
  // settings and how they bind a node to a provider and model. Pure; the store's run metadata
  // keeps a run's specs in it, so it sits below the store.
  models: ['shared'],
  // The store contract, its row schemas (store/schemas) and the SQLite backend behind it.
  store: ['models', 'shared'],
  // The execution-record contract: building the store's event rows and reading them back.
  records: ['store', 'models', 'shared'],
  // The workflow language: schema, loading, checks, `when`, substitution.
  workflow: ['records', 'models', 'shared'],
  // Registered repositories, checkouts and worktrees (git).
  codebases: ['workflow', 'records', 'store', 'shared'],
  // Per-user provider credentials.
  credentials: ['store', 'shared'],
  // Webhooks: signatures over a delivery's raw body, paths into its payload, the sealed secret.
  hooks: ['store', 'shared'],
  // Runs as a domain: creating one (queue-run.ts: the run route, the chat's `/workflow run` and a
  // parent's child runs all queue through it) and the rules of operations on a run.
  runs: ['hooks', 'models', 'codebases', 'workflow', 'records', 'store', 'shared'],
  // GitHub as a trigger (docs/github.md): its REST client, the decisions on an event, a run's status comment.
  github: ['runs', 'hooks', 'workflow', 'records', 'store', 'shared'],
  // Conversations and the chat turn's answers.
  conversations: ['runs', 'models', 'codebases', 'workflow', 'records', 'store', 'shared'],
  // HTTP wire schemas, shared by the API and the CLI.
  wire: ['conversations', 'runs', 'models', 'workflow', 'records', 'store', 'shared'],
  // What a terminal command is made of: its errors and exit codes, its streams, its styles.
  // Below the CLI so the launcher, the doctor and the stress tool use it without importing the CLI.
  terminal: ['shared'],

  // The processes (and the tools the CLI runs) sit on top.
  // The worker runs node attempts for the supervisor; it knows no process above it.
  worker: ['credentials', 'models', 'codebases', 'workflow', 'records', 'store', 'shared'],
  // The supervisor drives runs through the worker pool.
  // It makes a run's declared GitHub writes (nodes/github/) through github/'s client.
  supervisor: ['worker', 'conversations', 'github', 'runs', 'credentials', 'models', 'codebases', 'workflow', 'records', 'store', 'shared'],
  // `cairn doctor`: checks the install, the provider CLIs (through their adapters) and the config.
  // Below the API, which runs the same checks on request (GET /api/system/doctor, loaded lazily).
  doctor: ['terminal', 'worker', 'credentials', 'models', 'workflow', 'store', 'shared'],
  // The API process never executes a node: no worker, no supervisor. It may use the doctor, which
  // only looks at the worker's adapters (where an executable is, its `--version`) and runs nothing else.
  api: ['doctor', 'wire', 'conversations', 'github', 'runs', 'hooks', 'credentials', 'models', 'codebases', 'workflow', 'records', 'store', 'shared'],
  // `cairn serve`: starts and watches the API and the supervisor as child processes (by file, not by import).
  launcher: ['terminal', 'shared'],
  // `cairn stress`: runs a server under faults and reports.
  stress: ['terminal', 'wire', 'store', 'shared'],
  // `cairn migrate`: copies an install's SQLite store into PostgreSQL (the copy itself is the store's, store/copy/).
  migrate: ['terminal', 'store', 'shared'],
  // The `cairn` command: an HTTP client of the API. It may use the server-side folders below only
  // from the commands cli.ts lazy-loads (see "cli-startup-is-light"): the launcher (`serve`),
  // the doctor, the stress tool, the migration tool, and the workflow language (`workflow list|get|validate` read
  // workflow files locally). From the store only its row schemas (see "cli-store-schemas-only").
  // Never api, supervisor, worker, codebases, credentials or conversations.
  cli: ['terminal', 'launcher', 'doctor', 'stress', 'migrate', 'wire', 'runs', 'hooks', 'models', 'workflow', 'records', 'store', 'shared'],
};

const folders = Object.keys(layers);

/**
 * TEMPORARY exceptions: one import each, named exactly, that warns instead of failing until the
 * change that removes it lands. Every other import from the same file is checked as usual.
 */
const knownBackUps = [
  // None today. (The last, store/sqlite/run-totals-sql.ts → records/run-totals-fold.ts, left when
  // the totals fold moved to store/rules/ and the engine's reading of a record came to ride on
  // the event as `adds_to_totals`.)
];

const layerRules = folders.flatMap((folder) => {
  const allowed = `^src/(${[folder, ...layers[folder]].join('|')})/`;
  const known = knownBackUps.filter((exception) => exception.from.startsWith(`^src/${folder}/`));
  return [
    {
      name: `layer-${folder}`,
      comment: `src/${folder}/ may import only ${layers[folder].length ? layers[folder].map((f) => `src/${f}/`).join(', ') : 'itself'} (imports point down).`,
      severity: 'error',
      from: { path: `^src/${folder}/`, ...(known.length ? { pathNot: known.map((k) => k.from).join('|') } : {}) },
      to: { path: '^src/', pathNot: allowed },
    },
    ...known.flatMap((exception) => [
      {
        name: `layer-${folder}`,
        comment: `src/${folder}/ may import only its layers; ${exception.name} aside (below).`,
        severity: 'error',
        from: { path: exception.from },
        to: { path: '^src/', pathNot: `${allowed}|${exception.to}` },
      },
      {
        name: exception.name,
        comment: 'A known back-up import, warned until the change that removes it lands (see knownBackUps).',
        severity: 'warn',
        from: { path: exception.from },
        to: { path: exception.to },
      },
    ]),
  ];
});

/**
 * Inside the supervisor: process (main, the claim loop) → jobs (one handler per job kind) →
 * nodes (one handler per node kind) → children (a parent's side of its child runs) → run (the
 * per-run engine: scheduler, node table, plan). A room imports only rooms after it in this list.
 */
const supervisorRooms = ['process', 'jobs', 'nodes', 'children', 'run'];


const supervisorRules = supervisorRooms.flatMap((room, index) =>
  supervisorRooms.slice(0, index).map((above) => ({
    name: `supervisor-${room}-not-up-to-${above}`,
    comment: `supervisor/${room}/ is below supervisor/${above}/ (process → jobs → nodes → children → run).`,
    severity: 'error',
    from: { path: `^src/supervisor/${room}/` },
    to: { path: `^src/supervisor/${above}/` },
  })),
);

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'No import cycles. A cycle closed by `import type` is still a cycle in the design.',
      severity: 'error',
      from: { path: '^src/' },
      to: { circular: true },
    },
    ...layerRules,
    {
      name: 'cli-store-schemas-only',
      comment: 'The CLI reads the store\'s row schemas (what the API answers); never the store itself.',
      severity: 'error',
      from: { path: '^src/cli/' },
      to: { path: '^src/store/', pathNot: '^src/store/schemas/' },
    },
    {
      name: 'cli-startup-is-light',
      comment:
        'The CLI loads server-side code only in the commands cli.ts lazy-loads (src/cli/commands/), ' +
        'so `cairn --help` and the light commands start fast (test/cli/startup-imports.test.ts checks the startup). ' +
        'The one exception is launcher/run-dir.ts, the small reader of the live server file every command needs for the address.',
      severity: 'error',
      from: { path: '^src/cli/', pathNot: '^src/cli/(commands/|workflow-check\\.ts$)' },
      to: { path: '^src/(launcher|doctor|stress|migrate|workflow|models)/', pathNot: '^src/launcher/run-dir\\.ts$' },
    },
    ...supervisorRules,
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '\\.d\\.ts$' },
    // Type-only imports are dependencies too (they are where a type sits in the wrong room).
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      extensions: ['.ts', '.cts', '.mts', '.js', '.cjs', '.mjs', '.json'],
    },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
