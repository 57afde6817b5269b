// The one shape both ends of the service host speak through, whatever carries the messages: a
// worker thread's MessagePort (kvscope serve), an Electron utility process's parent port (the
// desktop app), or a MessageChannel in one thread (tests). Each carrier gets a small adapter.

/** A two-way message port: structured-clone messages out, a listener for messages in. */
export interface HostPort {
  post(message: unknown): void;
  /** Sets the one listener for incoming messages. */
  listen(onMessage: (message: unknown) => void): void;
}

/** What Node's MessagePort and Worker (worker_threads) have in common. */
export interface NodePortLike {
  postMessage(message: unknown): void;
  on(event: 'message', listener: (message: unknown) => void): unknown;
}

/** A Node MessagePort or Worker (worker_threads) as a HostPort. */
export function nodePort(port: NodePortLike): HostPort {
  return {
    post: (message) => port.postMessage(message),
    listen: (onMessage) => port.on('message', onMessage),
  };
}

/** The part of Electron's `process.parentPort` (a utility process) the host uses. */
export interface ParentPortLike {
  postMessage(message: unknown): void;
  on(event: 'message', listener: (event: { data: unknown }) => void): unknown;
}

/** An Electron utility process's parent port as a HostPort: its messages come wrapped in events. */
export function parentPortOf(port: ParentPortLike): HostPort {
  return {
    post: (message) => port.postMessage(message),
    listen: (onMessage) => port.on('message', (event) => onMessage(event.data)),
  };
}
