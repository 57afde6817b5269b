// The native menu. File actions run here in main; view and theme commands go to the renderer.

import { Menu, app, shell, type MenuItemConstructorOptions } from 'electron';
import type { FileResult, MenuCommand, ViewName } from '../../shared/api-types';
import type { FileActions } from '../service/invoke-handlers';
import { WIRE_FORMAT_URL } from '../service/service';

export interface MenuActions {
  files: FileActions;
  /** Sends a command to the renderer. */
  command(command: MenuCommand): void;
  /** Shows the outcome of a file action. */
  report(result: Promise<FileResult>): void;
  logsFolder: string;
}

/** Builds and installs the application menu. */
export function installMenu(actions: MenuActions): void {
  const { files, command, report } = actions;
  const view = (label: string, key: string, name: ViewName) => ({
    label,
    accelerator: `CmdOrCtrl+${key}`,
    click: () => command({ kind: 'view', view: name }),
  });
  const theme = (label: string, value: 'light' | 'dark' | 'system') => ({
    label,
    click: () => command({ kind: 'theme', theme: value }),
  });
  const template: MenuItemConstructorOptions[] = [
    ...(process.platform === 'darwin' ? [{ role: 'appMenu' as const }] : []),
    {
      label: 'File',
      submenu: [
        {
          label: 'Open Session...',
          accelerator: 'CmdOrCtrl+O',
          click: () => report(files.openSession()),
        },
        {
          label: 'Save Session As...',
          accelerator: 'CmdOrCtrl+S',
          click: () => report(files.saveSessionAs()),
        },
        {
          label: 'Import Capture...',
          accelerator: 'CmdOrCtrl+I',
          click: () => report(files.importCapture()),
        },
        {
          label: 'Export',
          submenu: [
            { label: 'Rates as CSV...', click: () => report(files.exportRatesCsv()) },
            {
              label: 'Chart as PNG...',
              accelerator: 'CmdOrCtrl+E',
              click: () => command({ kind: 'export-png' }),
            },
          ],
        },
        { type: 'separator' },
        { role: 'quit', accelerator: 'CmdOrCtrl+Q' },
      ],
    },
    {
      label: 'View',
      submenu: [
        view('Overview', '1', 'overview'),
        view('Insights', '2', 'insights'),
        view('Chains', '3', 'chains'),
        view('Events', '4', 'events'),
        view('Connections', '5', 'connections'),
        { type: 'separator' },
        { role: 'resetZoom' },
        { role: 'zoomIn' },
        { role: 'zoomOut' },
        { type: 'separator' },
        {
          label: 'Theme',
          submenu: [theme('Light', 'light'), theme('Dark', 'dark'), theme('System', 'system')],
        },
        { role: 'togglefullscreen' },
        ...(app.isPackaged ? [] : [{ role: 'toggleDevTools' as const }]),
      ],
    },
    {
      role: 'help',
      submenu: [
        // No '?' accelerator: it would take the key from every text field.
        { label: 'Keyboard Shortcuts', click: () => command({ kind: 'shortcuts' }) },
        { label: 'About KV Scope', click: () => command({ kind: 'about' }) },
        { label: 'The Wire Format', click: () => void shell.openExternal(WIRE_FORMAT_URL) },
        { label: 'Open Logs Folder', click: () => void shell.openPath(actions.logsFolder) },
      ],
    },
  ];
  Menu.setApplicationMenu(Menu.buildFromTemplate(template));
}
