// Theme preference (light / dark / system), persisted in localStorage, and chart colors per theme.

export type ThemePref = 'light' | 'dark' | 'system';
export type Theme = 'light' | 'dark';

export const THEME_KEY = 'kvscope.theme';

/** Reads a stored preference; anything unknown means "system". */
export function parseThemePref(v: string | null | undefined): ThemePref {
  return v === 'light' || v === 'dark' ? v : 'system';
}

/** The theme to draw with, given the preference and whether the OS prefers dark. */
export function resolveTheme(pref: ThemePref, systemDark: boolean): Theme {
  if (pref === 'system') return systemDark ? 'dark' : 'light';
  return pref;
}

/** The next preference in the toggle's cycle. */
export function nextThemePref(pref: ThemePref): ThemePref {
  return pref === 'system' ? 'light' : pref === 'light' ? 'dark' : 'system';
}

export interface ChartColors {
  lines: string[];
  /** Per-source lines: lighter, and none of them the blue/red of the totals. */
  sourceLines: string[];
  grid: string;
  axis: string;
  text: string;
  background: string;
  tooltipBg: string;
  markers: { clear: string; gap: string; reset: string; clock: string };
}

// Concrete colors (not CSS variables) so an exported SVG/PNG looks the same outside the page.
const LIGHT: ChartColors = {
  lines: ['#1f6feb', '#d1242f', '#1a7f37', '#bf3989', '#9a6700', '#8250df', '#0a7d8c', '#bc4c00'],
  sourceLines: ['#4ac26b', '#c297ff', '#d4a72c', '#3ab7c5', '#ff8182', '#fb8f44'],
  grid: '#e3e6ea',
  axis: '#8c959f',
  text: '#3d444d',
  background: '#ffffff',
  tooltipBg: '#ffffff',
  markers: { clear: '#8250df', gap: '#cf222e', reset: '#9a6700', clock: '#6e7781' },
};

const DARK: ChartColors = {
  lines: ['#58a6ff', '#ff7b72', '#3fb950', '#f778ba', '#d29922', '#bc8cff', '#39c5cf', '#ffa657'],
  sourceLines: ['#7ee2a8', '#d2a8ff', '#e3b341', '#76e3ea', '#ffa198', '#ffc680'],
  grid: '#2a313c',
  axis: '#6e7681',
  text: '#c9d1d9',
  background: '#151b23',
  tooltipBg: '#1c232d',
  markers: { clear: '#bc8cff', gap: '#ff7b72', reset: '#d29922', clock: '#8b949e' },
};

/** Chart colors for a theme. */
export function chartColors(theme: Theme): ChartColors {
  return theme === 'dark' ? DARK : LIGHT;
}

/** The color of palette entry i (wrapping); `source` picks the lighter per-source palette. */
export function lineColor(colors: ChartColors, i: number, source = false): string {
  const palette = source ? colors.sourceLines : colors.lines;
  return palette[i % palette.length] ?? '#888888';
}
