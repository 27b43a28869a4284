// What every command gets: the parsed global options, the language, the output helpers, and an SDK client
// built from flags, environment and the stored session (in that order of precedence).
import { type CrEinvoiceClient, createClient } from '@cr-einvoice/sdk';
import { localhostFetch } from '@cr-einvoice/sdk/localhost';
import { UsageError } from './exit-codes';
import { type Lang, type Translate, translator } from './i18n';
import { type Session, readSession, writeSession } from './session';

export interface GlobalOptions {
  json: boolean;
  lang: Lang;
  authUrl?: string | undefined;
  tenantUrl?: string | undefined;
}

export interface Io {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  stderrIsTty: boolean;
}

export class Context {
  readonly t: Translate;
  readonly session: Session;

  constructor(
    readonly options: GlobalOptions,
    readonly io: Io,
    readonly env: NodeJS.ProcessEnv = process.env,
  ) {
    this.t = translator(options.lang);
    this.session = readSession(env);
  }

  get authUrl(): string | undefined {
    return this.options.authUrl ?? this.env.CR_AUTH_URL ?? this.session.authUrl;
  }

  get tenantUrl(): string | undefined {
    return this.options.tenantUrl ?? this.env.CR_TENANT_URL ?? this.session.tenantUrl;
  }

  /** Human text on stdout, unless --json. */
  say(text: string): void {
    if (!this.options.json) this.io.stdout(`${text}\n`);
  }

  /** The command's result: JSON with --json, else the human lines. */
  result(data: unknown, human: () => string[]): void {
    if (this.options.json) this.io.stdout(`${JSON.stringify(data, null, 2)}\n`);
    else for (const line of human()) this.io.stdout(`${line}\n`);
  }

  /** A client for the tenant API: CR_BASE/CR_PASSWORD (logs in and renews by itself), else the stored token. */
  client(options: { needsTenant?: boolean } = {}): CrEinvoiceClient {
    const tenantUrl = this.tenantUrl;
    if (options.needsTenant !== false && !tenantUrl) throw new UsageError(this.t('needTenantUrl'));
    const base = this.env.CR_BASE ?? this.session.base;
    const password = this.env.CR_PASSWORD;
    const credentials = base && password ? { base, password } : undefined;
    if (credentials && !this.authUrl) throw new UsageError(this.t('needAuthUrl'));
    return createClient({
      ...(this.authUrl ? { authUrl: this.authUrl } : {}),
      ...(tenantUrl ? { tenantUrl } : {}),
      ...(credentials ? { credentials } : this.session.token ? { token: this.session.token } : {}),
      fetch: localhostFetch(),
      userAgent: 'cr-cli/0.1.0',
      // Stored as `cr login` stores it, URLs included, so a later `cr logout` can revoke it.
      onToken: (token) => {
        if (credentials)
          writeSession(
            {
              ...readSession(this.env),
              authUrl: this.authUrl,
              ...(tenantUrl ? { tenantUrl } : {}),
              base: credentials.base,
              ...token,
            },
            this.env,
          );
      },
    });
  }
}
