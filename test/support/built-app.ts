// Tests that run the built app use what `npm test` built; run on their own, they build it once.
// They never rebuild over a build that exists: other test files may be running it right now.
import { execSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';

export const ROOT = path.resolve(__dirname, '../..');
export const CLI = path.join(ROOT, 'dist/cli.cjs');

/** Builds dist/ (CLI, main, preload, renderer) when a part of it is missing. */
export function ensureBuilt(): void {
  const parts = ['dist/cli.cjs', 'dist/main.cjs', 'dist/preload.cjs', 'dist/renderer/index.html'];
  if (parts.every((part) => existsSync(path.join(ROOT, part)))) return;
  execSync('npm run build', { cwd: ROOT, stdio: 'pipe' });
}
