/**
 * A promise and the function that settles it, for tests that hold work at a chosen point (a slot taken, a
 * query answered) and let it go on later, without a timer. Node 20 has no Promise.withResolvers.
 */
export interface Latch<T = void> {
  promise: Promise<T>;
  release(value: T): void;
  fail(reason: unknown): void;
}

export function latch<T = void>(): Latch<T> {
  let release!: (value: T) => void;
  let fail!: (reason: unknown) => void;
  const promise = new Promise<T>((resolve, reject) => {
    release = resolve;
    fail = reject;
  });
  return { promise, release, fail };
}
