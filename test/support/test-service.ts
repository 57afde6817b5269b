// A service for the service tests: its files under `dir`, no demo, profiles in memory, frames every
// 20 ms; the latest frame it sent is kept (acked at once, as a screen does).
import type { UpdateFrame } from '../../shared/api-types';
import { KvScopeService, type ServiceOptions } from '../../electron/service/service';

export interface TestService {
  service: KvScopeService;
  /** The latest frame the service sent (null before the first). */
  lastFrame(): UpdateFrame | null;
}

export async function startTestService(
  dir: string,
  over: Partial<ServiceOptions> = {},
): Promise<TestService> {
  const service = await KvScopeService.start({
    dataDir: dir,
    demo: false,
    persistProfiles: false,
    transport: 'ipc',
    frameIntervalMs: 20,
    ...over,
  });
  return { service, lastFrame: latestFrame(service) };
}

/** The latest frame `service` sends from now on (null before the first), each acked at once. */
export function latestFrame(service: KvScopeService): () => UpdateFrame | null {
  let last: UpdateFrame | null = null;
  const sub = service.subscribe({
    send: (frame) => {
      last = frame;
      sub.ack(frame.n);
    },
  });
  return () => last;
}

/** A connection's settings: connect to `endpoint`, every topic, no replay, one rank. */
export const connectTo = (name: string, endpoint: string) => ({
  name,
  endpoint,
  mode: 'connect' as const,
  topic: '',
  replayEndpoint: null,
  dpRanks: 1,
});
