import { describe, expect, it } from 'vitest';
import { fileProgressText } from '../../renderer/lib/file-progress-text';

describe('file progress text', () => {
  it('says the phase, the file and how far, with bytes of total when known', () => {
    const t = fileProgressText('uploading', 'big.gz', 0.456, 17_000_000, 37_000_000);
    expect(t).toEqual({
      label: 'Uploading big.gz',
      detail: '45% · 16.2 MiB of 35.3 MiB',
      percent: 45,
    });
    expect(fileProgressText('reading', 'a', 0.5, null, null).detail).toBe('50%');
  });

  it('never says 100% before the end, and clamps what is out of range', () => {
    expect(fileProgressText('reading', 'a', 0.999, 999, 1000).percent).toBe(99);
    expect(fileProgressText('reading', 'a', 1.7, null, null).percent).toBe(100);
    expect(fileProgressText('reading', 'a', Number.NaN, null, null).percent).toBe(0);
  });
});
