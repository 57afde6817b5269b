// The service host's protocol without a thread: the service answers over one end of a
// MessageChannel in this thread, the HTTP host talks to the other end, exactly as it talks to the
// worker of `kvscope serve`. Tests keep the service itself at hand to poke it.
import { MessageChannel } from 'node:worker_threads';
import { nodePort } from '../../electron/host/host-port';
import { serveOverPort } from '../../electron/host/service-host';
import { ServiceLink } from '../../electron/host/service-link';
import type { KvScopeService } from '../../electron/service/service';

/** A link to `service` over a MessageChannel in this thread. */
export function linkInThread(service: KvScopeService): ServiceLink {
  const { port1, port2 } = new MessageChannel();
  serveOverPort(service, nodePort(port1));
  const link = new ServiceLink(nodePort(port2));
  // Open ports would keep a test's process alive after its last test.
  port1.unref();
  port2.unref();
  return link;
}
