// registerIpc runs only in Electron's main process: ipcMain is stood in for here; the handlers,
// the schemas and the sender check are the real ones.
import { describe, expect, it, vi } from 'vitest';
import { BRIDGE_METHODS, type InvokeHandlers } from '../../shared/contract';

type Handler = (event: unknown, ...args: unknown[]) => unknown;
const handlers = new Map<string, Handler>();
vi.mock('electron', () => ({
  ipcMain: {
    handle: (channel: string, fn: Handler) => handlers.set(channel, fn),
    removeHandler: (channel: string) => handlers.delete(channel),
  },
}));

const { registerIpc } = await import('../../electron/main/ipc');

const mainFrame = { id: 'main frame' };
const webContents = { mainFrame };
const window = { webContents } as unknown as Parameters<typeof registerIpc>[0];
const calls: unknown[][] = [];
const service = new Proxy({} as InvokeHandlers, {
  get:
    (_t, channel) =>
    (...args: unknown[]) => {
      calls.push([channel, ...args]);
      return `ok ${String(channel)}`;
    },
});

describe('registerIpc', () => {
  it('registers every channel and removes them all again', () => {
    const unregister = registerIpc(window, service);
    expect([...handlers.keys()].sort()).toEqual(Object.values(BRIDGE_METHODS).sort());
    unregister();
    expect(handlers.size).toBe(0);
  });

  it('passes validated arguments from our window to the handler', () => {
    registerIpc(window, service);
    const own = { sender: webContents, senderFrame: mainFrame };
    expect(handlers.get('profiles:delete')?.(own, 'abc')).toBe('ok profiles:delete');
    expect(calls.at(-1)).toEqual(['profiles:delete', 'abc']);
  });

  it('refuses a sender that is not our window, or a subframe of it', () => {
    const stranger = { sender: { mainFrame: {} }, senderFrame: {} };
    const subframe = { sender: webContents, senderFrame: { id: 'iframe' } };
    const before = calls.length;
    expect(() => handlers.get('profiles:list')?.(stranger)).toThrow(/not from the KV Scope window/);
    expect(() => handlers.get('profiles:list')?.(subframe)).toThrow(/not from the KV Scope window/);
    expect(calls.length).toBe(before);
  });

  it('refuses bad arguments before the service sees them', () => {
    const own = { sender: webContents, senderFrame: mainFrame };
    const before = calls.length;
    expect(() => handlers.get('sources:connect')?.(own, { id: 1 })).toThrow(/invalid call/);
    expect(calls.length).toBe(before);
  });
});
