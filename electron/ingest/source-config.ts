// What one subscribed endpoint needs, and how a (data-parallel) profile expands into them.
import type { Profile } from '../../shared/api-types';
import { endpointProblem, PROFILE_LIMITS } from '../../shared/profile-rules';

/** One ZeroMQ subscription: one engine, or one data-parallel rank of one. */
export interface SourceConfig {
  /** The profile id, with `#r` for data-parallel rank r > 0. */
  id: string;
  name: string;
  endpoint: string;
  mode: 'connect' | 'bind';
  /** Topic prefix filter; "" takes every topic. */
  topic: string;
  replayEndpoint: string | null;
  profileId: string | null;
  /** Seconds without a message before the source counts as stalled (default 10). */
  stallAfterSec?: number;
  /** Payloads larger than this are not decoded (counted as oversized). */
  maxPayloadBytes?: number;
}

export const DEFAULT_STALL_AFTER_SEC = 10;

const TCP_RE = /^tcp:\/\/(\[[0-9a-fA-F:.]+\]|[^\s:/[\]]+):(\d+|\*)$/;

/** Checks a ZeroMQ endpoint (tcp://host:port, ipc://path, inproc://name); throws a clear Error if bad. */
export function validateEndpoint(
  endpoint: string,
  what = 'endpoint',
  mode?: 'connect' | 'bind',
): void {
  const problem = endpointProblem(endpoint, mode);
  if (problem !== null) throw new Error(`${what} "${endpoint}": ${problem}`);
}

/** The endpoint of data-parallel rank `rank`: tcp port + rank; ipc/inproc get a `-rank` suffix. */
export function rankEndpoint(endpoint: string, rank: number): string {
  if (rank === 0) return endpoint;
  const m = TCP_RE.exec(endpoint);
  if (m) {
    const port = m[2] ?? '';
    if (port === '*')
      throw new Error(`cannot derive data-parallel ports from a wildcard port in ${endpoint}`);
    const next = Number(port) + rank;
    if (next > 65535)
      throw new Error(`rank ${rank} of ${endpoint} would need port ${next} (> 65535)`);
    return `tcp://${m[1] ?? ''}:${next}`;
  }
  // vLLM offsets only tcp ports; for other transports a suffix keeps ranks apart.
  return `${endpoint}-${rank}`;
}

/** What two subscriptions to one publisher need so as not to take the same batches. */
export const TOPICS_APART =
  'two topics neither of which starts the other; an empty topic takes every topic';

/**
 * Whether two sources would take the same batches: both connect to one endpoint with topics that
 * overlap (one a prefix of the other; "" takes every topic). Each batch would then come twice and
 * every total count it twice. Two binds cannot share a port, so they never do.
 */
export function subscribesTwice(a: SourceConfig, b: SourceConfig): boolean {
  return (
    a.mode === 'connect' &&
    b.mode === 'connect' &&
    samePublisher(a.endpoint, b.endpoint) &&
    (a.topic.startsWith(b.topic) || b.topic.startsWith(a.topic))
  );
}

/** Names of this machine's loopback that reach one publisher bound on it. */
const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * Whether two endpoints name one publisher: the same text, or tcp on one port of this machine's
 * loopback under two of its names (`localhost` and `127.0.0.1`), or a host name in two cases.
 */
function samePublisher(a: string, b: string): boolean {
  return a === b || publisherKey(a) === publisherKey(b);
}

function publisherKey(endpoint: string): string {
  const m = /^tcp:\/\/(\[[^\]]+\]|[^:/[\]]+):(\d+)$/.exec(endpoint);
  if (!m) return endpoint;
  const host = (m[1] ?? '').toLowerCase();
  return `tcp://${LOOPBACK.has(host) ? 'loopback' : host}:${Number(m[2])}`;
}

/** Expands a profile into one SourceConfig per data-parallel rank (ids `id`, `id#1`, ...). */
export function expandProfile(p: Profile): SourceConfig[] {
  validateEndpoint(p.endpoint, `endpoint of "${p.name}"`, p.mode);
  if (p.replayEndpoint !== null)
    validateEndpoint(p.replayEndpoint, `replay endpoint of "${p.name}"`, 'connect');
  const ranks = p.dpRanks;
  const max = PROFILE_LIMITS.dpRanksMax;
  if (!Number.isInteger(ranks) || ranks < 1 || ranks > max) {
    throw new Error(
      `data-parallel ranks of "${p.name}" must be a whole number from 1 to ${max}, got ${ranks}`,
    );
  }
  const out: SourceConfig[] = [];
  for (let r = 0; r < ranks; r++) {
    out.push({
      id: r === 0 ? p.id : `${p.id}#${r}`,
      name: ranks > 1 ? `${p.name} #${r}` : p.name,
      endpoint: rankEndpoint(p.endpoint, r),
      mode: p.mode,
      topic: p.topic,
      replayEndpoint: p.replayEndpoint === null ? null : rankEndpoint(p.replayEndpoint, r),
      profileId: p.id,
    });
  }
  return out;
}
