// What a one-statement transaction (ADR 0047) refuses on either engine: a second statement, or an exec. A refusal
// is remembered, and fails the transaction even if the callback caught it.
export class OneStatementRefusals {
  /** The first refusal, which the transaction then fails with. */
  refused: Error | undefined;

  secondStatement(): Promise<never> {
    return this.refuse('a second statement');
  }

  exec(): Promise<never> {
    return this.refuse('an exec (its statement goes through query)');
  }

  private refuse(what: string): Promise<never> {
    this.refused ??= new Error(`a one-statement transaction was sent ${what}`);
    return Promise.reject(this.refused);
  }
}
