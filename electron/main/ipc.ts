// Registers one IPC handler per contract channel: it refuses senders that are not our window and
// validates the arguments before the service sees them.

import { ipcMain, type BrowserWindow, type IpcMainInvokeEvent } from 'electron';
import { type InvokeChannel, type InvokeHandlers } from '../../shared/contract';
import { ARG_SCHEMAS, parseArgs } from '../../shared/schemas';

/** Wires every channel to `handlers`; returns a function that removes them. */
export function registerIpc(window: BrowserWindow, handlers: InvokeHandlers): () => void {
  const channels = Object.keys(ARG_SCHEMAS) as InvokeChannel[];
  for (const channel of channels) {
    ipcMain.handle(channel, (event: IpcMainInvokeEvent, ...args: unknown[]) => {
      if (
        event.sender !== window.webContents ||
        event.senderFrame !== window.webContents.mainFrame
      ) {
        throw new Error(`refused ${channel}: not from the KV Scope window`);
      }
      const parsed = parseArgs(channel, args);
      const handler = handlers[channel] as (...a: unknown[]) => unknown;
      return handler(...parsed);
    });
  }
  return () => channels.forEach((channel) => ipcMain.removeHandler(channel));
}
