// Validation of a connection profile as the user types it: a message per field, said plainly.

import type { ProfileInput } from '../../shared/api-types';

export type ProfileErrors = Partial<Record<keyof ProfileInput, string>>;

const TCP = /^tcp:\/\/(\*|\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+):(\d{1,5})$/;
const OTHER = /^(ipc|inproc):\/\/.+$/;

/** Checks a ZeroMQ endpoint; returns a message or null when it is fine. */
export function endpointError(endpoint: string, mode: 'connect' | 'bind'): string | null {
  const e = endpoint.trim();
  if (e === '') return 'Enter an endpoint, e.g. tcp://127.0.0.1:5557.';
  if (OTHER.test(e)) return null;
  const m = TCP.exec(e);
  if (!m) return 'Use tcp://host:port (or ipc://path), e.g. tcp://127.0.0.1:5557.';
  const port = Number(m[2]);
  if (port < 1 || port > 65535) return 'The port must be between 1 and 65535.';
  if (m[1] === '*' && mode === 'connect') return 'A wildcard host (*) only works with bind.';
  return null;
}

/** Validates every field; an empty object means the profile can be saved. */
export function validateProfile(p: ProfileInput): ProfileErrors {
  const errors: ProfileErrors = {};
  if (p.name.trim() === '') errors.name = 'Give the profile a name.';
  else if (p.name.length > 80) errors.name = 'Keep the name under 80 characters.';
  const ep = endpointError(p.endpoint, p.mode);
  if (ep) errors.endpoint = ep;
  if (p.replayEndpoint != null && p.replayEndpoint.trim() !== '') {
    const re = endpointError(p.replayEndpoint, 'connect');
    if (re) errors.replayEndpoint = `Replay: ${re}`;
  }
  if (!Number.isInteger(p.dpRanks) || p.dpRanks < 1 || p.dpRanks > 256) {
    errors.dpRanks = 'Data-parallel ranks: a whole number from 1 to 256.';
  }
  if (p.topic.length > 256) errors.topic = 'Keep the topic under 256 characters.';
  return errors;
}

/** Normalizes what the form holds into what saveProfile takes (trimmed, empty replay → null). */
export function normalizeProfile(p: ProfileInput): ProfileInput {
  const replay = p.replayEndpoint?.trim() ?? '';
  return {
    name: p.name.trim(),
    endpoint: p.endpoint.trim(),
    mode: p.mode,
    topic: p.topic,
    replayEndpoint: replay === '' ? null : replay,
    dpRanks: p.dpRanks,
  };
}
