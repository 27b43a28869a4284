// What an error line says. An API refusal leads with a sentence in the page's language, chosen by its
// stable code, followed by the API's own message: English, but it names the field, and it is what
// developers search for. A call that never had an answer says so the same way; any other error as it is.
import { ApiError, NetworkError } from './api';
import type { Words } from './i18n';

/**
 * Codes whose API message adds nothing to the sentence: a refused sign-in says only that the base or the
 * password is wrong (never which one, nor whether the base exists), so the line would say it twice.
 */
const SENTENCE_ONLY: ReadonlySet<string> = new Set(['invalid_credentials']);

export function errorText(error: unknown, t: Words): string {
  if (error instanceof ApiError) {
    const lead = Object.hasOwn(t.apiErrors, error.code) ? t.apiErrors[error.code] : undefined;
    if (lead && SENTENCE_ONLY.has(error.code)) return lead;
    return `${lead ?? t.apiErrorUnknown} — ${error.message}`;
  }
  if (error instanceof NetworkError) return `${t.networkError} — ${error.message}`;
  return error instanceof Error ? error.message : String(error);
}
