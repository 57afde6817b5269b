import { describe, expect, it } from 'vitest';
import { chartColors, nextThemePref, parseThemePref, resolveTheme } from '../../renderer/lib/theme';

describe('theme', () => {
  it('reads unknown stored values as system and resolves system from the OS', () => {
    expect(parseThemePref('bogus')).toBe('system');
    expect(parseThemePref('dark')).toBe('dark');
    expect(resolveTheme('system', true)).toBe('dark');
    expect(resolveTheme('system', false)).toBe('light');
    expect(resolveTheme('light', true)).toBe('light');
  });

  it('cycles system → light → dark → system', () => {
    expect([nextThemePref('system'), nextThemePref('light'), nextThemePref('dark')]).toEqual([
      'light',
      'dark',
      'system',
    ]);
  });

  it('uses concrete colors (no CSS variables) so exported charts keep them', () => {
    for (const theme of ['light', 'dark'] as const) {
      const c = chartColors(theme);
      expect([...c.lines, c.background, c.text].every((x) => x.startsWith('#'))).toBe(true);
    }
  });
});
