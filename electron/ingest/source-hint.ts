// What to tell a user whose source is silent: the usual reasons, in the order they bite.
import { missingCase } from '../../shared/records';
import { hostNotFoundText } from './host-lookup';
import type { SourceConfig } from './source-config';

/** What a silent source knows: whether anything ever arrived, and whether a peer is connected. */
export interface Silence {
  silentSec: number;
  everReceived: boolean;
  /** A TCP peer is (or was) connected: the engine answered; for bind, a publisher connected in. */
  peerConnected: boolean;
  /**
   * TCP connections were made (connect: accepted there; bind: made to us) but closed before any
   * ZeroMQ handshake, or one is up with none made.
   */
  notZeroMq?: boolean;
  /** A connect source's host name that a DNS lookup did not resolve, with the lookup's code. */
  hostNotFound?: { host: string; code: string } | null;
}

/** Which of the silences the hint tells apart a source is in. */
export type SilenceCase =
  'quiet' | 'silent-peer' | 'not-zeromq' | 'host-not-found' | 'never-connected';

/** The case of a silence: what the hint for it says depends on this (and the source's mode). */
export function silenceCase(s: Silence): SilenceCase {
  if (s.everReceived) return 'quiet';
  if (s.peerConnected) return 'silent-peer';
  if (s.notZeroMq) return 'not-zeromq';
  if (s.hostNotFound) return 'host-not-found';
  return 'never-connected';
}

/** The hint for a source that got nothing (or nothing more) for a while: the cases told apart. */
export function silenceHint(cfg: SourceConfig, s: Silence): string {
  const where = `${cfg.endpoint}${cfg.topic === '' ? '' : ` (topic filter "${cfg.topic}")`}`;
  const secs = Math.round(s.silentSec);
  const rankMatch = /#(\d+)$/.exec(cfg.id);
  const rank = rankMatch
    ? `with data parallel, rank r is on port base+r (this is rank ${rankMatch[1]})`
    : 'with data parallel, rank r is on port base+r';
  const kind = silenceCase(s);
  switch (kind) {
    case 'quiet':
      return (
        `no messages for ${secs} s on ${where}: the engine may be idle, stopped or restarting ` +
        `(ZeroMQ reconnects by itself; the source turns connected again when messages resume)`
      );
    case 'silent-peer':
      return (
        `connected to ${where}, but no events for ${secs} s: is the engine started with ` +
        `--kv-events-config '{"enable_kv_cache_events":true,"publisher":"zmq",...}'? ` +
        `is the topic right (publisher topic vs this prefix filter; "" takes all)? ` +
        `an idle engine publishes nothing until it serves a request`
      );
    case 'not-zeromq':
      return cfg.mode === 'bind'
        ? `something connected to ${where} but did not speak ZeroMQ (no handshake in ${secs} s): ` +
            `a browser, curl or a health check on this port? the publisher must connect here with a ` +
            `ZeroMQ PUB socket (llm-d's simulator's endpoint); ${rank}`
        : `${where} accepts TCP connections but does not answer as a ZeroMQ publisher (no handshake ` +
            `in ${secs} s): is it the engine's HTTP API or metrics port, or its replay port? the KV ` +
            `events port is the endpoint in --kv-events-config (vLLM's default tcp://*:5557); ${rank}`;
    case 'host-not-found': {
      const { host, code } = s.hostNotFound ?? { host: '', code: '' };
      return `never connected to ${where} in ${secs} s: ${hostNotFoundText(host, code)}`;
    }
    case 'never-connected':
      return cfg.mode === 'bind'
        ? `nothing connected to ${where} in ${secs} s: this source binds, so the publisher must ` +
            `connect out to this address (as llm-d's simulator does); vLLM binds itself, so connect ` +
            `to it instead; ${rank}`
        : `never connected to ${where} in ${secs} s: is the engine running, are the host and port ` +
            `right (a closed port, a wrong host)? vLLM binds (tcp://*:5557), so this source connects; a ` +
            `publisher that connects out (llm-d's simulator) needs bind here; ${rank}`;
    default:
      return missingCase(kind);
  }
}

/** A readable message for a failed bind or connect. */
export function socketErrorText(cfg: SourceConfig, err: unknown): string {
  const code = (err as { code?: string } | null)?.code;
  const msg = err instanceof Error ? err.message : String(err);
  if (code === 'EADDRINUSE') {
    return `cannot bind ${cfg.endpoint}: the address is already in use (another KV Scope source or program holds the port); pick another port or connect instead`;
  }
  if (code === 'EADDRNOTAVAIL') {
    return `cannot bind ${cfg.endpoint}: that address is not on this machine; bind 0.0.0.0, 127.0.0.1 or a local interface`;
  }
  return `cannot ${cfg.mode} ${cfg.endpoint}: ${msg}${code ? ` (${code})` : ''}`;
}
