// The window's hardening (Electron's security checklist), against stand-ins for BrowserWindow.
import { describe, expect, it, vi } from 'vitest';

type Listener = (event: { preventDefault: () => void }) => void;
const created: { options: Record<string, unknown>; contents: FakeContents }[] = [];
const opened: string[] = [];

class FakeContents {
  readonly listeners = new Map<string, Listener>();
  openHandler: ((d: { url: string }) => { action: string }) | null = null;
  permissionHandler: ((c: unknown, p: string, cb: (ok: boolean) => void) => void) | null = null;
  readonly session = {
    setPermissionRequestHandler: (h: FakeContents['permissionHandler']) => {
      this.permissionHandler = h;
    },
  };
  on(name: string, l: Listener) {
    this.listeners.set(name, l);
  }
  setWindowOpenHandler(h: FakeContents['openHandler']) {
    this.openHandler = h;
  }
}

vi.mock('electron', () => ({
  BrowserWindow: class {
    readonly webContents = new FakeContents();
    constructor(options: Record<string, unknown>) {
      created.push({ options, contents: this.webContents });
    }
    once() {}
    loadFile() {
      return Promise.resolve();
    }
  },
  shell: {
    openExternal: (url: string) => {
      opened.push(url);
      return Promise.resolve();
    },
  },
}));

const { createMainWindow } = await import('../../electron/main/window');

describe('the main window', () => {
  it('isolates the renderer: context isolation, sandbox, no node integration', () => {
    createMainWindow('/app/dist');
    const prefs = created[0]?.options.webPreferences as Record<string, unknown>;
    expect(prefs).toMatchObject({
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      webSecurity: true,
      preload: '/app/dist/preload.cjs',
    });
  });

  it('blocks navigation, webviews, new windows and permission requests', () => {
    const contents = created[0]?.contents as FakeContents;
    for (const name of ['will-navigate', 'will-redirect', 'will-attach-webview']) {
      const event = { preventDefault: vi.fn() };
      contents.listeners.get(name)?.(event);
      expect(event.preventDefault, name).toHaveBeenCalled();
    }
    expect(contents.openHandler?.({ url: 'https://docs.vllm.ai/' })).toEqual({ action: 'deny' });
    expect(contents.openHandler?.({ url: 'file:///etc/passwd' })).toEqual({ action: 'deny' });
    expect(opened).toEqual(['https://docs.vllm.ai/']);
    let granted: boolean | null = null;
    contents.permissionHandler?.(null, 'media', (ok) => (granted = ok));
    expect(granted).toBe(false);
  });
});
