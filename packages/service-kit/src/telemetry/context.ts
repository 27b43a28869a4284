// The request a piece of work belongs to, carried through every await by AsyncLocalStorage: the logger adds
// its id to every line (a use case's, a repository's, a job's that the request enqueued), without passing a
// child logger through every call.
import { AsyncLocalStorage } from 'node:async_hooks';

export interface RequestContext {
  requestId: string;
}

const storage = new AsyncLocalStorage<RequestContext>();

export function runWithRequestContext<T>(context: RequestContext, fn: () => T): T {
  return storage.run(context, fn);
}

export function currentRequestId(): string | undefined {
  return storage.getStore()?.requestId;
}
