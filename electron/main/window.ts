// The one app window, hardened per Electron's security checklist.

import path from 'node:path';
import { BrowserWindow, shell, type WebContents } from 'electron';

/** Creates the main window on the built renderer with the preload bridge. */
export function createMainWindow(distDir: string): BrowserWindow {
  const window = new BrowserWindow({
    width: 1280,
    height: 820,
    minWidth: 1024,
    minHeight: 700,
    title: 'KV Scope',
    show: false,
    webPreferences: {
      preload: path.join(distDir, 'preload.cjs'),
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      webSecurity: true,
      spellcheck: false,
    },
  });
  hardenWindow(window.webContents);
  window.once('ready-to-show', () => window.show());
  void window.loadFile(path.join(distDir, 'renderer', 'index.html'));
  return window;
}

/** Blocks navigation away from the app and every new window; http(s) links open in the browser. */
export function hardenWindow(contents: WebContents): void {
  contents.on('will-navigate', (event) => event.preventDefault());
  contents.on('will-redirect', (event) => event.preventDefault());
  contents.on('will-attach-webview', (event) => event.preventDefault());
  contents.setWindowOpenHandler(({ url }) => {
    if (/^https?:\/\//.test(url)) void shell.openExternal(url);
    return { action: 'deny' };
  });
  contents.session.setPermissionRequestHandler((_contents, _permission, callback) =>
    callback(false),
  );
}
