// The one way the renderer reaches the main side.

import type { Bridge } from '../../shared/contract';

/** window.kvscope (the preload's, or the WebSocket bridge installed at startup). */
export function bridge(): Bridge {
  return window.kvscope;
}

/** A readable message from anything thrown. */
export function errorText(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
