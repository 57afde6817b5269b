// Tests that run the built app use dist/. Vitest's global setup rebuilds it once, before any test
// file runs, when a source is newer than the build (so a bare `vitest` never tests stale bundles);
// test files never rebuild themselves: other files may be running the build right now.
import { execSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

/** The repository: found from the working directory, so it holds in tests and in bundled benches. */
export const ROOT = findRoot(process.cwd());
export const CLI = path.join(ROOT, 'dist/cli.cjs');

const PARTS = [
  'dist/cli.cjs',
  'dist/service-host.cjs',
  'dist/main.cjs',
  'dist/preload.cjs',
  'dist/renderer/index.html',
];
const SOURCES = ['electron', 'shared', 'renderer'];

/** Builds dist/ (CLI, main, preload, renderer) when a part of it is missing. */
export function ensureBuilt(): void {
  if (PARTS.every((part) => existsSync(path.join(ROOT, part)))) return;
  execSync('npm run build', { cwd: ROOT, stdio: 'pipe' });
}

/** Builds dist/ when a part is missing or any source file is newer than the oldest part. */
export function ensureFreshBuild(): void {
  const parts = PARTS.map((p) => path.join(ROOT, p));
  const built = parts.every((p) => existsSync(p))
    ? Math.min(...parts.map((p) => statSync(p).mtimeMs))
    : -Infinity;
  if (SOURCES.every((dir) => newestMtime(path.join(ROOT, dir)) <= built)) return;
  execSync('npm run build', { cwd: ROOT, stdio: 'pipe' });
}

function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    const t = entry.isDirectory() ? newestMtime(full) : statSync(full).mtimeMs;
    if (t > newest) newest = t;
  }
  return newest;
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
