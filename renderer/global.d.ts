// window.kvscope: provided by the Electron preload, or installed by the WebSocket bridge in a
// browser. Its type is the contract's Bridge, never a hand-kept copy.

import type { Bridge } from '../shared/contract';

declare global {
  interface Window {
    kvscope: Bridge;
  }
}

export {};
