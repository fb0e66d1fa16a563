/**
 * `POST /api/workflows/{name}/dry-run`: its answer is the trace the workflow language's dry-run
 * walk builds (workflow/dry-run/trace.ts). The API describes it in `/api/openapi.json`; the CLI
 * prints it (`cairn workflow run --dry-run`).
 */
export * from '../workflow/dry-run/trace.js';
