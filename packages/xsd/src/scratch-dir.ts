// The private directory where documents wait for xmllint (it reads files: several documents per run) and
// where a derived schema is written for it. mkdtemp makes it 0700 under the system's temp directory (or
// the given one), outside the repository; files are 0600 with random names that carry no input. The
// validator removes it when idle; what a busy process leaves is removed when it exits.
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const live = new Set<string>();
let cleanupInstalled = false;

function removeAll(): void {
  for (const dir of live) rmSync(dir, { recursive: true, force: true });
  live.clear();
}

export class ScratchDir {
  private dir: string | undefined;

  constructor(private readonly parent?: string) {}

  /**
   * The directory, made on first use and again if it has gone (a temp cleaner may remove an idle one;
   * `recreated` tells the caller that files it wrote there are gone too).
   */
  path(): { dir: string; recreated: boolean } {
    if (this.dir && existsSync(this.dir)) return { dir: this.dir, recreated: false };
    if (this.dir) live.delete(this.dir);
    if (!cleanupInstalled) {
      process.once('exit', removeAll);
      cleanupInstalled = true;
    }
    this.dir = mkdtempSync(join(this.parent ?? tmpdir(), 'cr-xsd-'));
    live.add(this.dir);
    return { dir: this.dir, recreated: true };
  }

  /** A fresh file name in the directory; nothing of the input is in it. */
  file(dir: string, extension: string): string {
    return join(dir, `${randomBytes(16).toString('hex')}${extension}`);
  }

  remove(): void {
    if (!this.dir) return;
    rmSync(this.dir, { recursive: true, force: true });
    live.delete(this.dir);
    this.dir = undefined;
  }
}
