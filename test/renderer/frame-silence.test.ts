import { describe, expect, it } from 'vitest';
import { FRAME_SILENCE_SEC, frameSilence } from '../../renderer/components/link-banner';

describe('frame silence', () => {
  it('says nothing before the first frame or while frames keep coming', () => {
    expect(frameSilence(0, 10_000)).toBeNull();
    expect(frameSilence(10_000, 10_000 + 999)).toBeNull();
  });

  it('names how long no frame has come once that is long enough to mean a stuck process', () => {
    expect(frameSilence(10_000, 10_000 + FRAME_SILENCE_SEC * 1000)).toBe(FRAME_SILENCE_SEC);
    expect(frameSilence(10_000, 25_000)).toBe(15);
  });
});
