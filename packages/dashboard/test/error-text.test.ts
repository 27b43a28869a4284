// An error line's words: an API refusal leads with a sentence in the page's language chosen by its code,
// then the API's own message; a call that never had an answer says so; any other error stays as it is.
import { ErrorCode } from '@cr/contracts';
import { ApiError, NetworkError, call } from '../src/api';
import { errorText } from '../src/error-text';
import { type Lang, WORDS } from '../src/i18n';

const CODES = ErrorCode.anyOf.map((literal) => literal.const);
const LANGS: Lang[] = ['es', 'en'];

describe('the sentences of the API error codes', () => {
  it.each(LANGS)(
    'when the words are %s, then every code of the contracts’ catalogue has its sentence',
    (lang) => {
      const sentences = WORDS[lang].apiErrors;

      expect(Object.keys(sentences).sort()).toEqual([...CODES].sort());
      for (const code of CODES) expect(sentences[code]).toMatch(/\S/);
    },
  );

  it('when a code is told in Spanish and in English, then the two sentences differ', () => {
    for (const code of CODES) expect(WORDS.es.apiErrors[code]).not.toBe(WORDS.en.apiErrors[code]);
  });
});

describe('errorText', () => {
  it('when the API refused the request, then the sentence of its code leads the API’s message, in the page’s language', () => {
    const refused = new ApiError(400, 'bad_request', 'receptor.nombre: is required');

    expect(errorText(refused, WORDS.es)).toBe(
      'La solicitud tiene datos inválidos — receptor.nombre: is required',
    );
    expect(errorText(refused, WORDS.en)).toBe('The request has invalid data — receptor.nombre: is required');
  });

  it('when a sign-in is refused, then the line is the sentence alone, not the same words twice', () => {
    const refused = new ApiError(401, 'invalid_credentials', 'base or password is incorrect');

    expect(errorText(refused, WORDS.es)).toBe('La base o la contraseña no son correctas');
    expect(errorText(refused, WORDS.en)).toBe('The base or the password is incorrect');
  });

  it('when the code is not in the catalogue, then a general sentence leads the message', () => {
    // What call() throws for an answer without an error body (a proxy's HTML page).
    const odd = new ApiError(502, 'error', 'HTTP 502');

    expect(errorText(odd, WORDS.es)).toBe('El servidor no pudo atender la solicitud — HTTP 502');
    expect(errorText(new ApiError(400, 'toString', 'odd'), WORDS.en)).toBe(
      'The server could not handle the request — odd',
    );
  });

  it('when fetch itself fails, then call() throws a NetworkError and the line says the server was not reached', async () => {
    const fetched = globalThis.fetch;
    globalThis.fetch = () => Promise.reject(new TypeError('Failed to fetch'));
    let thrown: unknown;
    try {
      await call('GET', '/api/documentos');
    } catch (err) {
      thrown = err;
    } finally {
      globalThis.fetch = fetched;
    }

    expect(thrown).toBeInstanceOf(NetworkError);
    expect(errorText(thrown, WORDS.es)).toBe(
      'No se pudo contactar al servidor; revise su conexión e intente de nuevo — Failed to fetch',
    );
    expect(errorText(thrown, WORDS.en)).toBe(
      'Could not reach the server; check your connection and try again — Failed to fetch',
    );
  });

  it('when the error is not the API’s, then it is shown as it is', () => {
    expect(errorText(new Error('Escriba el motivo.'), WORDS.en)).toBe('Escriba el motivo.');
    expect(errorText('plain', WORDS.es)).toBe('plain');
  });
});
