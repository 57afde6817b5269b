// What a bench's structures hold: the JS heap plus array buffers (typed arrays live outside the
// heap), after `collections` full collections (the bench runs with --expose-gc).

/** heapUsed + arrayBuffers in MB, after `collections` calls of gc(). */
export function heapMb(collections: number): number {
  for (let i = 0; i < collections; i++) (globalThis as { gc?: () => void }).gc?.();
  const m = process.memoryUsage();
  return (m.heapUsed + m.arrayBuffers) / 2 ** 20;
}
