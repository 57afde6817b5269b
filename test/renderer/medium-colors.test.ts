import { describe, expect, it } from 'vitest';
import type { Series } from '../../shared/api-types';
import { residentLines } from '../../renderer/lib/chart-rows';
import { mediumColorIndex } from '../../renderer/lib/medium-colors';

const withMedia = (media: string[]): Series => ({
  binSec: 1,
  sources: ['a'],
  media,
  points: [],
  markers: [],
});

describe('medium colours', () => {
  it('gives GPU and CPU their own fixed colours whatever order the media came in', () => {
    const first = residentLines(withMedia(['GPU', 'CPU']));
    const second = residentLines(withMedia(['CPU', 'DISK', 'GPU']));
    const colorOf = (lines: typeof first, label: string) =>
      lines.find((l) => l.label === `resident ${label}`)?.color;
    expect(colorOf(first, 'GPU')).toBe(colorOf(second, 'GPU'));
    expect(colorOf(first, 'CPU')).toBe(colorOf(second, 'CPU'));
    expect(colorOf(first, 'GPU')).not.toBe(colorOf(first, 'CPU'));
  });

  it('gives the media engines name today distinct colours', () => {
    const known = ['GPU', 'CPU', 'CPU_PINNED', 'DISK', 'STORAGE', 'EXTERNAL'];
    expect(new Set(known.map((m) => mediumColorIndex(m))).size).toBe(known.length);
  });

  it('colours any other medium from its name: the same name, the same colour, in range', () => {
    for (const name of ['unspecified', 'NVME', 'tier-3', '']) {
      const c = mediumColorIndex(name);
      expect(c).toBe(mediumColorIndex(name));
      expect(c).toBeGreaterThanOrEqual(0);
      expect(c).toBeLessThan(8);
    }
    expect(mediumColorIndex('gpu')).toBe(mediumColorIndex('GPU'));
  });

  it('lists media in a legend fastest tier first, whatever order the engine named them in', () => {
    const labels = (media: string[]) => residentLines(withMedia(media)).map((l) => l.label);
    expect(labels(['CPU', 'GPU'])).toEqual(['resident GPU', 'resident CPU']);
    expect(labels(['', 'NVME', 'DISK', 'CPU', 'GPU'])).toEqual([
      'resident GPU',
      'resident CPU',
      'resident DISK',
      'resident NVME',
      'resident unknown medium',
    ]);
    // Each line still draws its own medium's column.
    expect(residentLines(withMedia(['CPU', 'GPU'])).map((l) => l.key)).toEqual([
      'resident.1',
      'resident.0',
    ]);
  });
});
