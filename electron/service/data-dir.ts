import os from 'node:os';
import path from 'node:path';

/** Where `kvscope serve` keeps connections and recordings (the desktop app uses Electron's userData). */
export function defaultDataDir(): string {
  if (process.platform === 'win32' && process.env.APPDATA)
    return path.join(process.env.APPDATA, 'kvscope');
  if (process.platform === 'darwin') {
    return path.join(os.homedir(), 'Library', 'Application Support', 'kvscope');
  }
  return path.join(process.env.XDG_CONFIG_HOME ?? path.join(os.homedir(), '.config'), 'kvscope');
}
