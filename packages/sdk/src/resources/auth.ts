// auth.*: the auth-server's client operations.
import type { Transport } from '../transport';
import type { AccessToken } from '../token';
import type { ResponseBody } from '../types';

export class AuthResource {
  constructor(private readonly transport: Transport) {}

  /** Logs in with the client's credentials now (the client also does it by itself when needed). */
  login(): Promise<AccessToken> {
    return this.transport.tokens.login();
  }

  /** Revokes the current token at the auth-server and forgets it. */
  async logout(): Promise<ResponseBody<'auth.logout'>> {
    const { data } = await this.transport.call<ResponseBody<'auth.logout'>>('auth.logout');
    this.transport.tokens.clear();
    return data;
  }

  /** The token in hand and its expiry, if any. */
  currentToken(): AccessToken | undefined {
    return this.transport.tokens.peek();
  }
}
