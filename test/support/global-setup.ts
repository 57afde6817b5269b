// Vitest's global setup: runs once before any test file.
import { ensureFreshBuild } from './built-app';

/** Rebuilds dist/ when a source is newer than it, so no test runs a stale bundle. */
export default function setup(): void {
  ensureFreshBuild();
}
