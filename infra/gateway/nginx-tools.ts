// Finding and driving the nginx binary for the gateway checks and tests: a prefix directory of its own,
// `nginx -t` on a rendered config. Installs nothing.
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';

/** Path of the nginx binary, or undefined. Looks at PATH, then the Debian locations. */
export function findNginx(): string | undefined {
  const dirs = [...(process.env.PATH ?? '').split(delimiter), '/usr/sbin', '/usr/local/sbin', '/sbin'];
  for (const dir of dirs) {
    if (dir && existsSync(join(dir, 'nginx'))) return join(dir, 'nginx');
  }
  return undefined;
}

export function requireNginx(): string {
  const nginx = findNginx();
  if (!nginx) {
    throw new Error(
      'nginx is not installed: the gateway tests run the real gateway. Install it (Debian: `apt-get install -y nginx`); .ci/run does so under CI=true.',
    );
  }
  return nginx;
}

/** Runs `nginx -t` on a rendered config; returns nginx's output, throws with it when the test fails. */
export function testNginxConfig(nginx: string, dir: string, confPath: string): string {
  const result = spawnSync(nginx, ['-t', '-p', dir, '-c', confPath, '-e', join(dir, 'error.log')], {
    encoding: 'utf8',
  });
  const output = `${result.stdout ?? ''}${result.stderr ?? ''}`;
  if (result.status !== 0) throw new Error(`nginx -t failed for ${confPath}:\n${output}`);
  return output;
}

/** Makes a prefix directory nginx (master as root, workers as nobody) can use. */
export function makeGatewayDir(label = 'cr-gateway-'): string {
  const dir = mkdtempSync(join(tmpdir(), label));
  const temp = join(dir, 'temp');
  mkdirSync(temp);
  for (const sub of ['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi']) mkdirSync(join(temp, sub));
  // Workers drop to an unprivileged user when the master runs as root; they must be able to buffer.
  for (const d of [dir, temp]) chmodSync(d, 0o755);
  for (const sub of ['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi']) chmodSync(join(temp, sub), 0o777);
  return dir;
}
