// For tests of what throws an AppError: the error itself, to assert its code, status, message and details.
import { AppError } from '../errors';

/** The AppError `run` throws; fails the test when it returns or throws anything else. */
export function refusal(run: () => unknown): AppError {
  try {
    run();
  } catch (err) {
    if (err instanceof AppError) return err;
    throw err;
  }
  throw new Error('expected a refusal');
}
