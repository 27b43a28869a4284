// `pnpm --filter @cr/mail-catcher start`: the catcher alone (MAIL_CATCHER_HOST, _SMTP_PORT, _WEB_PORT).
import { startMailCatcher } from './start';

async function main(): Promise<void> {
  const running = await startMailCatcher({
    host: process.env.MAIL_CATCHER_HOST ?? '127.0.0.1',
    smtpPort: Number(process.env.MAIL_CATCHER_SMTP_PORT ?? 1025),
    webPort: Number(process.env.MAIL_CATCHER_WEB_PORT ?? 8025),
  });
  process.stdout.write(`mail catcher: SMTP ${running.smtpUrl}, messages at ${running.web.url}\n`);
  const stop = () => void running.stop().then(() => process.exit(0));
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

void main();
