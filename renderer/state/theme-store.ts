// The theme preference as an app-wide store: persisted, applied to <html data-theme>, and
// following the OS when set to "system".

import { useSyncExternalStore } from 'react';
import { THEME_KEY, parseThemePref, resolveTheme } from '../lib/theme';
import type { Theme, ThemePref } from '../lib/theme';

interface ThemeState {
  pref: ThemePref;
  theme: Theme;
}

const media = window.matchMedia('(prefers-color-scheme: dark)');
let state: ThemeState = compute(readPref());
const listeners = new Set<() => void>();

function readPref(): ThemePref {
  try {
    return parseThemePref(window.localStorage.getItem(THEME_KEY));
  } catch {
    return 'system';
  }
}

function compute(pref: ThemePref): ThemeState {
  return { pref, theme: resolveTheme(pref, media.matches) };
}

function publish(next: ThemeState): void {
  state = next;
  document.documentElement.dataset.theme = next.theme;
  document.documentElement.style.colorScheme = next.theme;
  for (const l of [...listeners]) l();
}

media.addEventListener('change', () => publish(compute(state.pref)));
publish(state);

/** Sets and persists the theme preference. */
export function setThemePref(pref: ThemePref): void {
  try {
    window.localStorage.setItem(THEME_KEY, pref);
  } catch {
    // Storage may be unavailable (private mode): the choice still applies for this run.
  }
  publish(compute(pref));
}

function subscribe(l: () => void): () => void {
  listeners.add(l);
  return () => listeners.delete(l);
}

/** The preference and the theme it resolves to. */
export function useTheme(): ThemeState {
  return useSyncExternalStore(subscribe, () => state);
}
