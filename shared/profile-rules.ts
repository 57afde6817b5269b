// The one set of rules for a connection profile: the zod schema the main side validates with, and
// from it the form's messages per field and the sources' and CLI's endpoint checks.

import { z } from 'zod';
import type { ProfileInput } from './api-types';

/** Limits of a profile, said once. */
export const PROFILE_LIMITS = { nameMax: 80, topicMax: 256, dpRanksMax: 256, idMax: 64 } as const;

const TCP = /^tcp:\/\/(\*|\[[0-9a-fA-F:.]+\]|[^\s:/[\]]+):(\d+|\*)$/;

/** What is wrong with an endpoint regardless of mode, or null. */
function endpointShapeProblem(e: string): string | null {
  if (e === '') return 'the endpoint is empty: give one like tcp://127.0.0.1:5557';
  if (e.startsWith('ipc://') || e.startsWith('inproc://')) {
    return e.slice(e.indexOf('://') + 3) === '' ? 'it has no path or name after the scheme' : null;
  }
  if (!e.startsWith('tcp://')) {
    return 'not a ZeroMQ endpoint: an endpoint looks like tcp://host:port (or ipc://path, inproc://name)';
  }
  const m = TCP.exec(e);
  if (!m) return 'it must look like tcp://host:port, e.g. tcp://127.0.0.1:5557';
  const port = m[2] ?? '';
  if (port !== '*' && !(Number(port) >= 1 && Number(port) <= 65535)) {
    return 'the port must be from 1 to 65535';
  }
  return null;
}

/** What is wrong with an endpoint for `mode` (both checks when mode is not given), or null. */
export function endpointProblem(endpoint: string, mode?: 'connect' | 'bind'): string | null {
  const e = endpoint.trim();
  const shape = endpointShapeProblem(e);
  if (shape !== null || mode !== 'connect') return shape;
  const m = TCP.exec(e);
  if (m?.[1] === '*') return 'a wildcard host (*) only works with bind';
  if (m?.[2] === '*') return 'a wildcard port (*) only works with bind';
  return null;
}

const endpointSchema = z
  .string()
  .trim()
  .superRefine((e, ctx) => {
    const problem = endpointShapeProblem(e);
    if (problem !== null) ctx.addIssue({ code: 'custom', message: problem });
  });

const metricsUrlSchema = z
  .string()
  .trim()
  .pipe(
    z.url({
      protocol: /^https?$/,
      error: 'an engine metrics URL looks like http://127.0.0.1:8000/metrics',
    }),
  );

/** A profile as saved: the main side parses every save with this. */
export const profileInputSchema = z
  .strictObject({
    id: z.string().min(1).max(PROFILE_LIMITS.idMax).optional(),
    name: z
      .string()
      .trim()
      .min(1, 'give the connection a name')
      .max(PROFILE_LIMITS.nameMax, `keep the name under ${PROFILE_LIMITS.nameMax} characters`),
    endpoint: endpointSchema,
    mode: z.enum(['connect', 'bind']),
    topic: z
      .string()
      .max(PROFILE_LIMITS.topicMax, `keep the topic under ${PROFILE_LIMITS.topicMax} characters`),
    replayEndpoint: endpointSchema.nullable(),
    dpRanks: z
      .number()
      .int(`data-parallel ranks: a whole number from 1 to ${PROFILE_LIMITS.dpRanksMax}`)
      .min(1, `data-parallel ranks: a whole number from 1 to ${PROFILE_LIMITS.dpRanksMax}`)
      .max(
        PROFILE_LIMITS.dpRanksMax,
        `data-parallel ranks: a whole number from 1 to ${PROFILE_LIMITS.dpRanksMax}`,
      ),
    metricsUrl: metricsUrlSchema.nullable().optional(),
  })
  .superRefine((p, ctx) => {
    // Mode-dependent: a connecting socket needs a real host and port (the replay socket connects).
    const ep = endpointProblem(p.endpoint, p.mode);
    if (ep !== null && endpointShapeProblem(p.endpoint.trim()) === null) {
      ctx.addIssue({ code: 'custom', path: ['endpoint'], message: ep });
    }
    if (p.replayEndpoint !== null) {
      const re = endpointProblem(p.replayEndpoint, 'connect');
      if (re !== null && endpointShapeProblem(p.replayEndpoint.trim()) === null) {
        ctx.addIssue({ code: 'custom', path: ['replayEndpoint'], message: re });
      }
    }
  });

/** Whether the n ports from a and the n from b share one (rank r adds r to both). */
export function rankPortsOverlap(a: number, b: number, n: number): boolean {
  return Math.abs(a - b) < n;
}

/**
 * Where an engine's own ports collide: rank r publishes on the endpoint's port + r and answers
 * replay on the replay port + r (DESIGN), so with `dpRanks` ranks on one host the two runs of
 * ports must not meet (with 5557 and 5558 and two ranks, rank 1 would publish on rank 0's replay
 * port: no engine can start so). Null when they do not, or cannot be told (other hosts, ipc).
 * Not in profileInputSchema: a connection saved before it must still load.
 */
export function rankPortProblem(
  p: Pick<ProfileInput, 'endpoint' | 'replayEndpoint' | 'dpRanks'>,
): string | null {
  if (p.replayEndpoint === null) return null;
  const events = TCP.exec(p.endpoint.trim());
  const replay = TCP.exec(p.replayEndpoint.trim());
  if (!events || !replay || events[1] !== replay[1]) return null;
  const [at, from] = [Number(events[2]), Number(replay[2])];
  const n = p.dpRanks;
  if (!Number.isInteger(at) || !Number.isInteger(from) || !rankPortsOverlap(at, from, n))
    return null;
  if (n === 1)
    return `the replay port ${from} is the events port: an engine answers replay on a port of its own`;
  return `with ${n} data-parallel ranks the events use ports ${at} to ${at + n - 1} and the replay ${from} to ${from + n - 1}, which overlap (rank r adds r to both); give the replay a port from ${at + n} on`;
}

export type ProfileErrors = Partial<Record<keyof ProfileInput, string>>;

/** The form's view of the schema: the first message per field, as a sentence. */
export function profileErrors(p: ProfileInput): ProfileErrors {
  const result = profileInputSchema.safeParse(normalizeProfile(p));
  const errors: ProfileErrors = {};
  if (result.success) {
    const ports = rankPortProblem(result.data);
    if (ports !== null)
      errors.replayEndpoint = `Replay: ${ports.charAt(0).toUpperCase()}${ports.slice(1)}.`;
    return errors;
  }
  for (const issue of result.error.issues) {
    const field = issue.path[0] as keyof ProfileInput | undefined;
    if (field === undefined || errors[field] !== undefined) continue;
    const text = issue.message.charAt(0).toUpperCase() + issue.message.slice(1) + '.';
    errors[field] = field === 'replayEndpoint' ? `Replay: ${text}` : text;
  }
  return errors;
}

/** What the form holds as what a save takes: trimmed, an empty replay endpoint as null. */
export function normalizeProfile(p: ProfileInput): ProfileInput {
  const replay = p.replayEndpoint?.trim() ?? '';
  return {
    name: p.name.trim(),
    endpoint: p.endpoint.trim(),
    mode: p.mode,
    topic: p.topic,
    replayEndpoint: replay === '' ? null : replay,
    dpRanks: p.dpRanks,
    ...(p.metricsUrl === undefined ? {} : { metricsUrl: p.metricsUrl?.trim() || null }),
  };
}
