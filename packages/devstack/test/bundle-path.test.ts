import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { REPO_ROOT } from '@cr/testkit';
import { bundleNodePath } from '../src/bundle-path';

describe('bundleNodePath', () => {
  it('puts pnpm’s hoisted directory first and keeps an inherited NODE_PATH after it', () => {
    const hoisted = join('/repo', 'node_modules', '.pnpm', 'node_modules');
    expect(bundleNodePath('/repo')).toBe(hoisted);
    expect(bundleNodePath('/repo', '/elsewhere')).toBe(`${hoisted}${delimiter}/elsewhere`);
  });

  it('lets a script outside every package resolve a library only a workspace package depends on', () => {
    // xml-crypto is a dependency of @cr/hacienda-xml, not of the repository root nor of this package.
    const dir = mkdtempSync(join(tmpdir(), 'bundle-path-'));
    try {
      const script = join(dir, 'main.js');
      writeFileSync(script, "require('xml-crypto'); process.stdout.write('resolved');");
      const env = { ...process.env, NODE_PATH: '' };
      const without = spawnSync(process.execPath, [script], { env, encoding: 'utf8' });
      expect(without.status).not.toBe(0);
      const withPath = spawnSync(process.execPath, [script], {
        env: { ...env, NODE_PATH: bundleNodePath(REPO_ROOT) },
        encoding: 'utf8',
      });
      expect(withPath.stdout).toBe('resolved');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
