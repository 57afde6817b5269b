// A renderer's handlers on the side that serves the screen: its file channels run here (dialogs,
// HTTP routes), every other channel of the contract is relayed to the service host as it is, so a
// channel added to the contract later needs no change here.

import type { InvokeChannel, InvokeHandlers } from '../../shared/contract';
import { ARG_SCHEMAS } from '../../shared/schemas';
import { FILE_ACTION_CHANNELS, type FileActions } from '../service/invoke-handlers';
import type { LinkedClient } from './service-link';

/** Every channel of the contract: file actions answered by `files`, the rest by the host. */
export function relayHandlers(client: LinkedClient, files: FileActions): InvokeHandlers {
  const handlers: Record<string, (...args: unknown[]) => unknown> = {};
  for (const channel of Object.keys(ARG_SCHEMAS) as InvokeChannel[]) {
    const action = (FILE_ACTION_CHANNELS as Partial<Record<InvokeChannel, keyof FileActions>>)[
      channel
    ];
    handlers[channel] = action
      ? (...args) => (files[action] as (...a: unknown[]) => unknown)(...args)
      : (...args) => client.invoke(channel, args);
  }
  return handlers as InvokeHandlers;
}
