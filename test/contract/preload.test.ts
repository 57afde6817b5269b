// The preload runs only inside Electron, which cannot start here: these tests stand in for the
// two electron objects it touches and check what it exposes.
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { BRIDGE_EVENTS, BRIDGE_METHODS } from '../../shared/contract';

const exposed = new Map<string, unknown>();
const invoked: { channel: string; args: unknown[] }[] = [];
const listeners = new Map<string, Set<(...a: unknown[]) => void>>();

vi.mock('electron', () => ({
  contextBridge: { exposeInMainWorld: (key: string, api: unknown) => exposed.set(key, api) },
  ipcRenderer: {
    invoke: (channel: string, ...args: unknown[]) => {
      invoked.push({ channel, args });
      return Promise.resolve(`result of ${channel}`);
    },
    on: (channel: string, fn: (...a: unknown[]) => void) => {
      if (!listeners.has(channel)) listeners.set(channel, new Set());
      listeners.get(channel)?.add(fn);
    },
    removeListener: (channel: string, fn: (...a: unknown[]) => void) =>
      listeners.get(channel)?.delete(fn),
  },
}));

describe('preload', () => {
  let api: Record<string, unknown>;
  beforeAll(async () => {
    await import('../../electron/preload/preload');
    api = exposed.get('kvscope') as Record<string, unknown>;
  });

  it('exposes exactly the contract as window.kvscope, and nothing else', () => {
    expect([...exposed.keys()]).toEqual(['kvscope']);
    const expected = [...Object.keys(BRIDGE_METHODS), ...Object.keys(BRIDGE_EVENTS)].sort();
    expect(Object.keys(api).sort()).toEqual(expected);
    for (const value of Object.values(api)) expect(typeof value).toBe('function');
  });

  it('sends each method on its contract channel with its arguments', async () => {
    const call = api.getSeries as (q: unknown) => Promise<unknown>;
    await expect(call({ rangeSec: 60 })).resolves.toBe('result of model:series');
    expect(invoked.at(-1)).toEqual({ channel: 'model:series', args: [{ rangeSec: 60 }] });
    for (const [name, channel] of Object.entries(BRIDGE_METHODS)) {
      await (api[name] as () => Promise<unknown>)();
      expect(invoked.at(-1)?.channel).toBe(channel);
    }
  });

  it('subscriptions deliver the payload only and return a working unsubscribe', () => {
    const got: unknown[] = [];
    const subscribe = api.onUpdate as (fn: (p: unknown) => void) => () => void;
    const unsubscribe = subscribe((payload) => got.push(payload));
    const emit = (payload: unknown) =>
      listeners.get('update')?.forEach((fn) => fn({ sender: 'ipc event' }, payload));
    emit({ n: 1 });
    unsubscribe();
    emit({ n: 2 });
    expect(got).toEqual([{ n: 1 }]);
    expect(listeners.get('update')?.size).toBe(0);
  });
});
