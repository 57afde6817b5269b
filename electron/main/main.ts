// Electron entry: app lifecycle, the window, the menu and the IPC wiring to the service, which runs
// in its own utility process (service-process.ts).

import { appendFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { app, dialog, type BrowserWindow } from 'electron';
import type { UpdateFrame } from '../../shared/api-types';
import { BRIDGE_EVENTS } from '../../shared/contract';
import { relayHandlers } from '../host/relay-handlers';
import type { ServiceLink } from '../host/service-link';
import { readLaunchOptions } from '../cli/launch-options';
import { dialogFileActions } from './dialogs';
import { registerIpc } from './ipc';
import { CLOSE_CHOICES, closeGuard } from './close-guard';
import { installMenu } from './menu';
import { reportFileResult } from './file-report';
import { startServiceProcess, type ServiceProcess } from './service-process';
import { createMainWindow } from './window';

let service: ServiceProcess | null = null;
let quitting = false;

function log(line: string): void {
  const dir = app.getPath('logs');
  mkdirSync(dir, { recursive: true });
  appendFileSync(path.join(dir, 'main.log'), `${new Date().toISOString()} ${line}\n`);
}

async function start(): Promise<void> {
  const launch = readLaunchOptions(process.env);
  service = await startServiceProcess(path.join(__dirname, 'service-host.cjs'), {
    dataDir: app.getPath('userData'),
    endpoints: launch.endpoints,
    demo: launch.demo ? true : 'auto',
    demoPort: launch.demoPort,
    ...(launch.group === undefined ? {} : { group: launch.group }),
    transport: 'ipc',
  });
  const link = service.link;
  // A dead service is no silent dead window: say why and what is kept, then end.
  link.onLost((reason) => {
    log(`service lost: ${reason}`);
    if (quitting) return;
    dialog.showErrorBox('KV Scope stopped', reason);
    app.exit(1);
  });
  log(`started ${app.getVersion()} with ${launch.endpoints.length} endpoint(s)`);
  const window = createMainWindow(__dirname);
  wireWindow(window, link);
}

function wireWindow(window: BrowserWindow, svc: ServiceLink): void {
  const files = dialogFileActions(window, svc);
  const client = svc.connect((channel, payload) => {
    if (window.isDestroyed()) return;
    window.webContents.send(channel, payload);
    if (channel !== BRIDGE_EVENTS.onUpdate) return;
    const frame = payload as UpdateFrame;
    const mark = frame.view.unsaved ? ' *' : '';
    window.setTitle(`KV Scope: ${frame.view.title}${mark}`);
    window.setDocumentEdited(frame.view.unsaved);
  });
  const unregister = registerIpc(window, relayHandlers(client, files));
  installMenu({
    files,
    command: (command) => window.webContents.send(BRIDGE_EVENTS.onMenuCommand, command),
    report: (result) =>
      void reportFileResult(result, {
        log,
        showError: (text) => dialog.showErrorBox('KV Scope', text),
      }),
    logsFolder: app.getPath('logs'),
  });

  const mayClose = closeGuard({
    hasUnsaved: () => !quitting && svc.unsaved,
    ask: () =>
      dialog.showMessageBoxSync(window, {
        type: 'question',
        buttons: [...CLOSE_CHOICES],
        defaultId: 0,
        cancelId: 2,
        message: 'The live session has not been saved.',
        detail:
          'Its recording stays in the app data folder, but will not be opened again by itself.',
      }),
    saveAs: () => files.saveSessionAs(),
    close: () => {
      quitting = true;
      window.close();
    },
    showError: (text) => dialog.showErrorBox('KV Scope', text),
    log,
  });
  window.on('close', (event) => {
    if (!mayClose()) event.preventDefault();
  });
  window.on('closed', () => {
    client.close();
    unregister();
  });
}

if (!app.requestSingleInstanceLock()) {
  app.quit();
} else {
  app.setName('KV Scope');
  app.on('window-all-closed', () => {
    quitting = true;
    void (service?.close() ?? Promise.resolve()).finally(() => app.quit());
  });
  app
    .whenReady()
    .then(start)
    .catch((err: unknown) => {
      dialog.showErrorBox(
        'KV Scope could not start',
        err instanceof Error ? err.message : String(err),
      );
      app.exit(1);
    });
}
