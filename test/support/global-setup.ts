// Vitest's global setup: runs once before any test file.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ensureFreshBuild } from './built-app';

/**
 * Rebuilds dist/ when a source is newer than it, so no test runs a stale bundle. The data folder
 * of the commands the tests run (`kvscope analyze` keeps its analyses there) is a new one: a test
 * never reads what an earlier run left, nor writes the user's own.
 */
export default function setup(): () => void {
  ensureFreshBuild();
  const config = mkdtempSync(path.join(os.tmpdir(), 'kvscope-test-config-'));
  process.env.XDG_CONFIG_HOME = config;
  return () => rmSync(config, { recursive: true, force: true });
}
