// Which endpoints a source looks its host up for: names only, never an IP literal or a wildcard.
import { describe, expect, it } from 'vitest';
import { endpointHostName } from '../../electron/ingest/host-lookup';

describe('the host name of an endpoint', () => {
  it('is the name of a tcp:// endpoint, and none for an IP literal, a wildcard or ipc://', () => {
    expect(endpointHostName('tcp://gpu-box-7.internal:5557')).toBe('gpu-box-7.internal');
    expect(endpointHostName(' tcp://localhost:5557 ')).toBe('localhost');
    expect(endpointHostName('tcp://10.0.0.5:5557')).toBeNull();
    expect(endpointHostName('tcp://[::1]:5557')).toBeNull();
    expect(endpointHostName('tcp://*:5557')).toBeNull();
    expect(endpointHostName('ipc:///tmp/kv.sock')).toBeNull();
  });
});
