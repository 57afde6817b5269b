// A publisher for tests and benches that sends only once a subscriber has joined: an XPUB socket
// sees each subscription, so nothing is lost to ZeroMQ's slow-joiner window and no sleep is needed.
import { XPublisher } from 'zeromq';

export class StreamPublisher {
  private constructor(
    private readonly sock: XPublisher,
    /** Where subscribers connect (a random loopback port). */
    readonly endpoint: string,
  ) {}

  /** Binds on 127.0.0.1 at a random port; the queue holds `highWaterMark` messages per peer. */
  static async bind(highWaterMark = 200_000): Promise<StreamPublisher> {
    const sock = new XPublisher({ linger: 0, sendHighWaterMark: highWaterMark });
    sock.verbosity = 'allSubs';
    await sock.bind('tcp://127.0.0.1:*');
    return new StreamPublisher(sock, sock.lastEndpoint as string);
  }

  /** Resolves when the next subscription arrives (unsubscriptions are skipped). */
  async subscribed(): Promise<void> {
    for (;;) {
      const [frame] = await this.sock.receive();
      if (frame !== undefined && frame[0] === 1) return;
    }
  }

  /** Sends the messages in order. */
  async send(messages: readonly (readonly Uint8Array[])[]): Promise<void> {
    for (const m of messages) await this.sock.send(m as Uint8Array[]);
  }

  close(): void {
    this.sock.close();
  }
}
