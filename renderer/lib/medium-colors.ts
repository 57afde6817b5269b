// Stable colours and order for storage media: GPU is always the same colour and CPU another, in
// every chart, session and theme; any other medium gets a colour from its name, not from its
// position, so a medium appearing first or later does not repaint the others. Legends list media
// fastest tier first, whichever the engine named first. Pure.

/** The media engines name today, fastest tier first (a legend's order), with their palette slots. */
const KNOWN_MEDIA: readonly (readonly [string, number])[] = [
  ['GPU', 0],
  ['CPU', 2],
  ['CPU_PINNED', 6],
  ['DISK', 4],
  ['STORAGE', 5],
  ['EXTERNAL', 7],
];
/** Palette slots (into ChartColors.lines) of the known media. */
const SLOTS = new Map(KNOWN_MEDIA);
const TIER_ORDER = KNOWN_MEDIA.map(([medium]) => medium);

/** The palette slot of a medium: fixed for the known ones, a hash of the name for the rest. */
export function mediumColorIndex(medium: string, paletteSize = 8): number {
  const known = SLOTS.get(medium.toUpperCase());
  if (known !== undefined) return known % paletteSize;
  // FNV-1a over the name: the same name gives the same slot in every run.
  let h = 0x811c9dc5;
  for (let i = 0; i < medium.length; i += 1) {
    h ^= medium.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h % paletteSize;
}

/** Sorts media for a legend: the known tiers fastest first, then others by name, none ('') last. */
export function compareMedia(a: string, b: string): number {
  const rank = (m: string): number => {
    if (m === '') return TIER_ORDER.length + 1;
    const i = TIER_ORDER.indexOf(m.toUpperCase());
    return i < 0 ? TIER_ORDER.length : i;
  };
  return rank(a) - rank(b) || (a < b ? -1 : a > b ? 1 : 0);
}
