// What an error line says. An API refusal leads with a sentence in the page's language, chosen by its
// stable code, followed by the API's own message: English, but it names the field, and it is what
// developers search for. A call that never had an answer says so the same way; any other error as it is.
import { ApiError, NetworkError } from './api';
import type { Words } from './i18n';

export function errorText(error: unknown, t: Words): string {
  if (error instanceof ApiError) {
    const lead = Object.hasOwn(t.apiErrors, error.code) ? t.apiErrors[error.code] : undefined;
    return `${lead ?? t.apiErrorUnknown} — ${error.message}`;
  }
  if (error instanceof NetworkError) return `${t.networkError} — ${error.message}`;
  return error instanceof Error ? error.message : String(error);
}
