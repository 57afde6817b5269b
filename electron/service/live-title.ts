// The header's name for the live view: what is live, in words. The demo alone is "Live: demo
// stream"; real engines beside it are named too, so the header never calls a real engine's
// figures a demo's.

/** "Live: gpu-box and the demo stream", "Live: 3 connections", "Live: no connection". */
export function liveTitle(demo: boolean, connections: readonly string[]): string {
  const [only] = connections;
  const named =
    connections.length === 0
      ? null
      : connections.length === 1 && only !== undefined
        ? only
        : `${connections.length} connections`;
  if (named === null) return demo ? 'Live: demo stream' : 'Live: no connection';
  return demo ? `Live: ${named} and the demo stream` : `Live: ${named}`;
}
