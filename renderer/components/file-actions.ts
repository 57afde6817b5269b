// The file buttons' actions, shared by the header and the menu commands.

import type { FileResult } from '../../shared/api-types';
import { fileResultNotice } from '../../shared/file-result';
import { bridge, errorText } from '../bridge/bridge';
import { chartSvgInView, pngSubtitle, svgToPng, type ChartOnScreen } from '../lib/png-export';
import { chartColors } from '../lib/theme';
import type { Theme } from '../lib/theme';

/** Shows a notice; one of a topic takes the place of the topic's last (lib/notice-list). */
export type Notify = (text: string, kind?: 'info' | 'error', topic?: string) => void;

/** Runs a file action and reports its outcome in words (a cancel says nothing). */
export async function runFileAction(
  label: string,
  action: () => Promise<FileResult>,
  notify: Notify,
): Promise<void> {
  try {
    const notice = fileResultNotice(await action());
    if (notice) notify(notice.text, notice.kind);
  } catch (e) {
    notify(`${label} failed: ${errorText(e)}`, 'error');
  }
}

/** Exports a chart (default: the first on screen) as a PNG through the bridge. */
export async function exportPng(
  theme: Theme,
  notify: Notify,
  chart: ChartOnScreen | null = chartSvgInView(),
): Promise<void> {
  if (!chart) {
    notify('No chart on screen: open the Overview to export a chart as PNG.', 'error');
    return;
  }
  await runFileAction(
    'Export PNG',
    async () => {
      const c = chartColors(theme);
      const title = `KV Scope: ${chart.title}`;
      const png = await svgToPng(chart.svg, {
        background: c.background,
        text: c.text,
        muted: c.axis,
        title,
        subtitle: pngSubtitle(chart.meta),
        legend: chart.meta.legend,
      });
      return bridge().exportChartPng(png);
    },
    notify,
  );
}

/** Reads a dropped file and opens it as a session (or capture: the main side tells them apart). */
export async function openDroppedFile(file: File, notify: Notify): Promise<void> {
  await runFileAction(
    'Opened',
    async () => bridge().openSessionData(file.name, new Uint8Array(await file.arrayBuffer())),
    notify,
  );
}
