// What `kvscope desktop` passes to the Electron process: endpoints and flags, in one env variable
// (Chromium takes some command-line switches for itself).

import { z } from 'zod';
import type { ProfileInput } from '../../shared/api-types';
import { MAX_GROUP_IDX } from '../../shared/event-bounds';
import { profileInputSchema } from '../../shared/profile-rules';

export const LAUNCH_ENV = 'KVSCOPE_LAUNCH';

export interface LaunchOptions {
  endpoints: ProfileInput[];
  demo: boolean;
  /** The demo's first port; 0 picks free ones. */
  demoPort?: number;
  /** The one KV cache group the analysis takes (--group). */
  group?: number;
}

const launchSchema = z.object({
  endpoints: z.array(profileInputSchema),
  demo: z.boolean(),
  demoPort: z.number().int().min(0).max(65535).optional(),
  group: z.number().int().min(0).max(MAX_GROUP_IDX).optional(),
});

/** Encodes launch options for the child's environment. */
export function encodeLaunchOptions(options: LaunchOptions): string {
  return JSON.stringify(options);
}

/** Reads them back; absent or unreadable means defaults (no endpoints, demo when nothing else). */
export function readLaunchOptions(env: NodeJS.ProcessEnv): LaunchOptions {
  const text = env[LAUNCH_ENV];
  if (!text) return { endpoints: [], demo: false };
  try {
    return launchSchema.parse(JSON.parse(text));
  } catch {
    return { endpoints: [], demo: false };
  }
}
