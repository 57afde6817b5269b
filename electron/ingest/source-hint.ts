// What to tell a user whose source is silent: the usual reasons, in the order they bite.
import type { SourceConfig } from './source-config';

/** The hint for a source that got nothing (or nothing more) for `silentSec` seconds. */
export function silenceHint(cfg: SourceConfig, silentSec: number, everReceived: boolean): string {
  const where = `${cfg.endpoint}${cfg.topic === '' ? '' : ` (topic filter "${cfg.topic}")`}`;
  const secs = Math.round(silentSec);
  if (everReceived) {
    return (
      `no messages for ${secs} s on ${where}: the engine may be idle, stopped or restarting ` +
      `(ZeroMQ reconnects by itself; the source turns connected again when messages resume)`
    );
  }
  const side =
    cfg.mode === 'connect'
      ? 'this source connects, so the engine must bind (vLLM does: tcp://*:5557); a publisher that connects out (llm-d simulator) needs --bind / mode bind here'
      : 'this source binds, so the publisher must connect out to this address; vLLM binds itself, so connect to it instead';
  const rankMatch = /#(\d+)$/.exec(cfg.id);
  const rank = rankMatch
    ? `; with data parallel, rank r is on port base+r (this is rank ${rankMatch[1]})`
    : '; with data parallel, rank r is on port base+r';
  return (
    `no messages for ${secs} s on ${where}: is the engine started with ` +
    `--kv-events-config '{"enable_kv_cache_events":true,"publisher":"zmq",...}'? ` +
    `is the topic right (publisher topic vs this prefix filter; "" takes all)? ` +
    `${side}${rank}`
  );
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
