// Asks on the terminal (stderr), hiding a password as it is typed. Without a terminal it reads one line
// from stdin, so `echo "$PASS" | cr login --base acme` works in scripts.
import { createInterface } from 'node:readline';

export function prompt(question: string, secret = false): Promise<string> {
  return new Promise((resolve) => {
    const rl = createInterface({
      input: process.stdin,
      output: process.stderr,
      terminal: process.stdin.isTTY,
    });
    if (secret && process.stdin.isTTY) {
      // Echo nothing of what is typed.
      (rl as unknown as { _writeToOutput: (s: string) => void })._writeToOutput = (s: string) => {
        if (s.includes(question)) process.stderr.write(question);
      };
    }
    rl.question(question, (answer) => {
      rl.close();
      if (secret && process.stdin.isTTY) process.stderr.write('\n');
      resolve(answer.trim());
    });
    rl.on('close', () => resolve(''));
  });
}
