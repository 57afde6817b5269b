// Tests that run the built app use what `npm test` built; run on their own, they build it once.
// They never rebuild over a build that exists: other test files may be running it right now.
import { execSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';

/** The repository: found from the working directory, so it holds in tests and in bundled benches. */
export const ROOT = findRoot(process.cwd());
export const CLI = path.join(ROOT, 'dist/cli.cjs');

/** Builds dist/ (CLI, main, preload, renderer) when a part of it is missing. */
export function ensureBuilt(): void {
  const parts = ['dist/cli.cjs', 'dist/main.cjs', 'dist/preload.cjs', 'dist/renderer/index.html'];
  if (parts.every((part) => existsSync(path.join(ROOT, part)))) return;
  execSync('npm run build', { cwd: ROOT, stdio: 'pipe' });
}

function findRoot(from: string): string {
  for (let dir = from; ; dir = path.dirname(dir)) {
    const manifest = path.join(dir, 'package.json');
    if (existsSync(manifest) && JSON.parse(readFileSync(manifest, 'utf8')).name === 'kvscope')
      return dir;
    if (path.dirname(dir) === dir)
      throw new Error(`run from inside the kvscope repository (not ${from})`);
  }
}
