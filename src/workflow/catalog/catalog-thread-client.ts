import { Worker } from 'node:worker_threads';
import { z } from 'zod';
import { CairnError, coerceError, errorCodes } from '../../shared/errors.js';
import { builtPath, runsFromBuild } from '../../shared/package-root.js';
import type { CatalogLocations } from './locations.js';

/**
 * The catalog's side of its worker thread (`catalog-thread.ts`) and the messages between them:
 * a call of one of the catalog's methods, and its reply. The client starts the thread on the
 * first call and matches replies by id. The thread is `unref()`ed while idle, so it never keeps
 * a process alive; if it dies, the calls in flight fail and the next call starts a new one.
 * Errors cross as `{ code, message, details }` and are rebuilt here, since a CairnError does not
 * survive structured cloning as one.
 */

/** The catalog methods the thread runs: the ones that read, parse or write workflow files. */
export const threadMethodSchema = z.enum(['snapshot', 'validate', 'save', 'delete', 'declares']);
export type ThreadMethod = z.infer<typeof threadMethodSchema>;

export const catalogCallSchema = z.object({ id: z.number().int(), method: threadMethodSchema, args: z.array(z.unknown()) }).strict();
export type CatalogCall = z.infer<typeof catalogCallSchema>;

const wireErrorSchema = z.object({ code: z.enum(errorCodes).optional(), message: z.string(), details: z.unknown() });
type WireError = z.infer<typeof wireErrorSchema>;

/** The value is the method's result, made by the same build on the other side: the envelope
 * is checked, the content is the catalog's own types. */
export const catalogReplySchema = z.union([
  z.object({ id: z.number().int(), ok: z.literal(true), value: z.unknown() }).strict(),
  z.object({ id: z.number().int(), ok: z.literal(false), error: wireErrorSchema }).strict(),
]);
export type CatalogReply = z.infer<typeof catalogReplySchema>;

/** A thrown error as the thread sends it. */
export function toWireError(thrown: unknown): WireError {
  if (thrown instanceof CairnError) return { code: thrown.code, message: thrown.message, details: thrown.details };
  const err = coerceError(thrown);
  return { message: err.stack ?? err.message, details: undefined };
}

function fromWireError(error: WireError): Error {
  if (error.code) return new CairnError(error.code, error.message, error.details);
  return new Error(`workflow catalog thread: ${error.message}`);
}

/** The catalog as the thread serves it: the methods it runs there (catalog.ts's WorkflowCatalog). */
type Served = Record<ThreadMethod, (...args: never[]) => unknown>;

type Method<C extends Served, M extends ThreadMethod> = C[M] extends (...args: infer A) => infer R ? (...args: A) => R : never;

/** The built thread entry; undefined when running from sources (tests,
 * tsx), where there is no `.js` to start and the catalog works in-process instead. */
export function defaultThreadFile(): string | undefined {
  return runsFromBuild ? builtPath('workflow/catalog/catalog-thread.js') : undefined;
}

interface Running {
  worker: Worker;
  pending: Map<number, { resolve: (value: unknown) => void; reject: (err: Error) => void }>;
}

export class CatalogThread<C extends Served> {
  private running: Running | undefined;
  private nextId = 1;

  constructor(
    private readonly file: string,
    private readonly locations: CatalogLocations,
  ) {}

  /** Runs `catalog[method](...args)` on the thread. */
  call<M extends ThreadMethod>(method: M, ...args: Parameters<Method<C, M>>): Promise<ReturnType<Method<C, M>>> {
    const { worker, pending } = (this.running ??= this.start());
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
      // Held while calls are in flight, so an awaited call keeps its process alive.
      if (pending.size === 1) worker.ref();
      worker.postMessage({ id, method, args } satisfies CatalogCall);
    });
  }

  /** Stops the thread; calls in flight fail. */
  async close(): Promise<void> {
    const running = this.running;
    this.running = undefined;
    await running?.worker.terminate();
  }

  private start(): Running {
    const worker = new Worker(this.file, { workerData: this.locations });
    const running: Running = { worker, pending: new Map() };
    const { pending } = running;
    worker.unref();
    worker.on('message', (message: unknown) => {
      const reply = catalogReplySchema.parse(message);
      const waiter = pending.get(reply.id);
      pending.delete(reply.id);
      if (pending.size === 0) worker.unref();
      if (reply.ok) waiter?.resolve(reply.value);
      else waiter?.reject(fromWireError(reply.error));
    });
    const fail = (err: Error) => {
      if (this.running === running) this.running = undefined;
      for (const waiter of pending.values()) waiter.reject(err);
      pending.clear();
    };
    worker.on('error', (err) => fail(new Error('workflow catalog thread failed', { cause: err })));
    worker.on('exit', (code) => fail(new Error(`workflow catalog thread exited (code ${code})`)));
    return running;
  }
}
