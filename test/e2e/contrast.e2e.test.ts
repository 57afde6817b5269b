// Text contrast of the theme's filled controls and warning words, in real Chromium against
// `kvscope serve --demo`: WCAG AA asks 4.5:1 for text this size. The pressed range button of the
// dark theme read 3.3:1 (white on #388bfd), the light theme's amber "stalled" 4.3:1.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openApp, setTheme, type ServeProcess, useE2eWorkspace } from '../support/e2e-harness';

const ws = useE2eWorkspace('contrast');
let serve: ServeProcess;
let page: Page;

beforeAll(async () => {
  serve = await ws.serve('data', ['--demo']);
  page = await openApp(ws.browser, serve.url, { width: 1280, height: 800 });
}, 60_000);

afterAll(async () => {
  await page?.context().close();
});

/** The contrast ratio of two computed CSS colors ("rgb(r, g, b)"), as WCAG 2 defines it. */
function contrast(a: string, b: string): number {
  const lum = (c: string): number => {
    const [r, g, bl] = (c.match(/[\d.]+/g) ?? []).slice(0, 3).map((v) => {
      const x = Number(v) / 255;
      return x <= 0.03928 ? x / 12.92 : ((x + 0.055) / 1.055) ** 2.4;
    }) as [number, number, number];
    return 0.2126 * r + 0.7152 * g + 0.0722 * bl;
  };
  const [hi, lo] = [lum(a), lum(b)].sort((x, y) => y - x) as [number, number];
  return (hi + 0.05) / (lo + 0.05);
}

/** The computed text and background colors of the first element matching css. */
function colorsOf(css: string): Promise<{ fg: string; bg: string }> {
  return page.evaluate<{ fg: string; bg: string }>(`(() => {
    const s = getComputedStyle(document.querySelector(${JSON.stringify(css)}));
    return { fg: s.color, bg: s.backgroundColor };
  })()`);
}

/** A theme color token (a custom property) as a computed color, through a probe element. */
function token(name: string): Promise<string> {
  return page.evaluate<string>(`(() => {
    const probe = document.createElement('span');
    probe.style.color = 'var(${name})';
    document.body.append(probe);
    const c = getComputedStyle(probe).color;
    probe.remove();
    return c;
  })()`);
}

describe('text contrast', () => {
  it('is 4.5:1 or more on a pressed range button and for warning words, in both themes', async () => {
    await page.getByTestId('range-5m').waitFor();
    for (const theme of ['light', 'dark'] as const) {
      await setTheme(page, theme);
      const pressed = await colorsOf('.seg[aria-pressed="true"]');
      expect(contrast(pressed.fg, pressed.bg), `the pressed button, ${theme}`).toBeGreaterThan(4.5);
      for (const surface of ['--surface', '--surface-2']) {
        const ratio = contrast(await token('--warn'), await token(surface));
        expect(ratio, `--warn on ${surface}, ${theme}`).toBeGreaterThan(4.5);
      }
    }
  }, 60_000);
});
