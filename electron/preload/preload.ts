// Exposes exactly the Bridge of shared/contract.ts as window.kvscope: named functions only,
// never ipcRenderer itself. Built from the contract's tables, so it cannot drift from them.

import { contextBridge, ipcRenderer, type IpcRendererEvent } from 'electron';
import { BRIDGE_EVENTS, BRIDGE_METHODS, type Bridge } from '../../shared/contract';

function buildBridge(): Bridge {
  const bridge: Record<string, unknown> = {};
  for (const [name, channel] of Object.entries(BRIDGE_METHODS)) {
    bridge[name] = (...args: unknown[]) => ipcRenderer.invoke(channel, ...args);
  }
  for (const [name, channel] of Object.entries(BRIDGE_EVENTS)) {
    bridge[name] = (listener: (payload: unknown) => void) => {
      const wrapped = (_event: IpcRendererEvent, payload: unknown) => listener(payload);
      ipcRenderer.on(channel, wrapped);
      return () => {
        ipcRenderer.removeListener(channel, wrapped);
      };
    };
  }
  return bridge as Bridge;
}

const kvscope: Bridge = buildBridge();
contextBridge.exposeInMainWorld('kvscope', kvscope);
