// Progress while waiting, always on stderr (stdout stays clean for --json): on a terminal one line
// redrawn with a spinner, elsewhere a line whenever the state changes and every 10 s.
import type { Io } from './context';

const FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

export class Progress {
  private frame = 0;
  private lastLine = '';
  private lastPrinted = 0;

  constructor(private readonly io: Io) {}

  update(text: string, key: string): void {
    if (this.io.stderrIsTty) {
      this.io.stderr(`\r\x1b[2K${FRAMES[this.frame++ % FRAMES.length]} ${text}`);
      return;
    }
    const now = Date.now();
    if (key !== this.lastLine || now - this.lastPrinted >= 10_000) {
      this.io.stderr(`${text}\n`);
      this.lastLine = key;
      this.lastPrinted = now;
    }
  }

  done(): void {
    if (this.io.stderrIsTty) this.io.stderr('\r\x1b[2K');
  }
}
