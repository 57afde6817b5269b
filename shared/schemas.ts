// Argument schemas for every invoke channel: the main side validates each call with these before
// it reaches the service, whichever transport carried it.

import { z } from 'zod';
import type { InvokeChannel, InvokeContract } from './contract';
import { MAX_ABS_TS_SEC } from './event-bounds';
import { MAX_SEARCH_CHARS, MAX_UPLOAD_BYTES, MAX_UPLOAD_BYTES_TEXT } from './limits';
import { profileInputSchema } from './profile-rules';

const bytes = z
  .instanceof(Uint8Array)
  .refine((b) => b.byteLength <= MAX_UPLOAD_BYTES, `file larger than ${MAX_UPLOAD_BYTES_TEXT}`);

/**
 * Bounds of a series query, for the schema and for the model's own clamp: the range in seconds
 * back from the latest event (the bin table holds 48 h, so more is the whole session) and the
 * points per series.
 */
export const SERIES_BOUNDS = { maxRangeSec: 1e9, minPoints: 2, maxPoints: 5000 } as const;

const kvEventType = z.enum(['BlockStored', 'BlockRemoved', 'AllBlocksCleared']);
const searchText = z.string().max(MAX_SEARCH_CHARS);
const id = z.string().min(1).max(200);

const page = {
  offset: z.number().int().nonnegative(),
  limit: z.number().int().min(1).max(5000),
};

/** The chains view's filter and order (an export takes it without the page). */
export const chainFilterSchema = z.strictObject({
  sort: z.enum(['depth', 'lastSeen', 'firstSeen', 'restores', 'resident', 'evicted', 'sources']),
  desc: z.boolean(),
  hash: searchText.optional(),
  source: id.optional(),
  residentOnly: z.boolean().optional(),
  view: z.string().min(1).max(64).optional(),
  hold: z.boolean().optional(),
  generation: z.number().int().nonnegative().optional(),
});
const chainQuerySchema = chainFilterSchema.extend({ ...page, locate: id.optional() });

/** The events view's filter (an export takes it without the page). */
export const eventFilterSchema = z.strictObject({
  types: z.array(kvEventType).max(3).optional(),
  source: id.optional(),
  medium: z.string().min(1).max(64).optional(),
  hash: searchText.optional(),
  upTo: z.number().int().min(-1).optional(),
  beforeTs: z.number().min(-MAX_ABS_TS_SEC).max(MAX_ABS_TS_SEC).optional(),
});
const eventQuerySchema = eventFilterSchema.extend(page);

/** csv or json. */
export const exportFormatSchema = z.enum(['csv', 'json']);

/** One tuple schema per channel, checked against the contract's argument types. */
export const ARG_SCHEMAS = {
  'app:info': z.tuple([]),
  'frames:ack': z.tuple([z.number().int().nonnegative()]),
  'profiles:list': z.tuple([]),
  'profiles:save': z.tuple([profileInputSchema]),
  'profiles:delete': z.tuple([id]),
  'sources:connect': z.tuple([id]),
  'sources:disconnect': z.tuple([id]),
  'demo:set': z.tuple([z.boolean()]),
  'model:series': z.tuple([
    z.strictObject({
      rangeSec: z.number().positive().max(SERIES_BOUNDS.maxRangeSec).nullable(),
      maxPoints: z
        .number()
        .int()
        .min(SERIES_BOUNDS.minPoints)
        .max(SERIES_BOUNDS.maxPoints)
        .optional(),
      toTs: z.number().min(-MAX_ABS_TS_SEC).max(MAX_ABS_TS_SEC).optional(),
    }),
  ]),
  'model:chains': z.tuple([chainQuerySchema]),
  'model:chain': z.tuple([id]),
  'model:search': z.tuple([searchText]),
  'model:events': z.tuple([eventQuerySchema]),
  'model:insights': z.tuple([]),
  'engine:reconciliation': z.tuple([]),
  'session:open': z.tuple([]),
  'session:open-data': z.tuple([z.string().min(1).max(255), bytes]),
  'session:save-as': z.tuple([]),
  'session:import-capture': z.tuple([]),
  'session:back-to-live': z.tuple([]),
  'session:cancel-open': z.tuple([]),
  'recordings:list': z.tuple([]),
  // A file name from recordings:list, never a path: no separators, no dot-dot.
  'recordings:open': z.tuple([
    z
      .string()
      .max(200)
      .regex(/^recording-[\w.-]+\.kvscope\.jsonl\.gz$/, 'a recording name from the list')
      .refine((n) => !n.includes('..'), 'a recording name from the list'),
  ]),
  'export:rates-csv': z.tuple([]),
  'export:chart-png': z.tuple([bytes]),
  'export:events': z.tuple([eventFilterSchema, exportFormatSchema]),
  'export:chains': z.tuple([chainFilterSchema, exportFormatSchema]),
} satisfies { [C in InvokeChannel]: z.ZodType<InvokeContract[C]['args'], unknown> };

/** Validates a call's arguments; throws an Error that says which argument is wrong and why. */
export function parseArgs<C extends InvokeChannel>(
  channel: C,
  args: unknown[],
): InvokeContract[C]['args'] {
  const result = ARG_SCHEMAS[channel].safeParse(args);
  if (!result.success) {
    const issue = result.error.issues[0];
    const where = issue?.path.length ? ` (argument ${issue.path.join('.')})` : '';
    throw new Error(`invalid call to ${channel}${where}: ${issue?.message ?? 'bad arguments'}`);
  }
  return result.data as InvokeContract[C]['args'];
}
