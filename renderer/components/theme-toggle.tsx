import { nextThemePref } from '../lib/theme';
import { setThemePref, useTheme } from '../state/theme-store';

const LABEL = { light: 'Light', dark: 'Dark', system: 'System' } as const;
const ICON = { light: '☀', dark: '☾', system: '◐' } as const;

/** Cycles the theme preference: system → light → dark. */
export function ThemeToggle() {
  const { pref } = useTheme();
  const next = nextThemePref(pref);
  return (
    <button
      type="button"
      className="btn btn-ghost"
      data-testid="theme-toggle"
      aria-label={`Theme: ${LABEL[pref]}. Switch to ${LABEL[next]}`}
      title={`Theme: ${LABEL[pref]} (click for ${LABEL[next]})`}
      onClick={() => setThemePref(next)}
    >
      <span aria-hidden="true">{ICON[pref]}</span> {LABEL[pref]}
    </button>
  );
}
