// The catcher as `pnpm start` runs it: SMTP on 127.0.0.1:1025 and the page on :8025 unless told otherwise.
import { SmtpCatcher } from './catcher';
import { type CatcherWeb, startCatcherWeb } from './web';

export interface MailCatcherOptions {
  host?: string;
  smtpPort?: number;
  webPort?: number;
}

export interface RunningMailCatcher {
  catcher: SmtpCatcher;
  web: CatcherWeb;
  /** SMTP_URL for the tenant-api. */
  smtpUrl: string;
  stop(): Promise<void>;
}

export async function startMailCatcher(options: MailCatcherOptions = {}): Promise<RunningMailCatcher> {
  const host = options.host ?? '127.0.0.1';
  const catcher = await new SmtpCatcher({ host, port: options.smtpPort ?? 1025 }).start();
  try {
    const web = await startCatcherWeb(catcher, host, options.webPort ?? 8025);
    return {
      catcher,
      web,
      smtpUrl: catcher.url,
      stop: async () => {
        await web.stop();
        await catcher.stop();
      },
    };
  } catch (err) {
    await catcher.stop();
    throw err;
  }
}
