// The desktop's file actions: every path comes from a dialog owned by main, never from the renderer.

import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { dialog, type BrowserWindow } from 'electron';
import type { ExportFormat, FileResult } from '../../shared/api-types';
import { CANCELLED, done } from '../../shared/file-result';
import type { HostCalls } from '../host/host-protocol';
import type { FileActions } from '../service/invoke-handlers';

const SESSION_FILTERS = [
  { name: 'KV Scope session', extensions: ['gz', 'jsonl'] },
  { name: 'All files', extensions: ['*'] },
];

/** What the dialogs hand their chosen paths to: the service host. */
export type DialogService = Pick<
  HostCalls,
  'openSession' | 'importCapture' | 'saveSession' | 'ratesCsv' | 'exportEvents' | 'exportChains'
>;

const EXPORT_FILTERS: Record<ExportFormat, Electron.FileFilter> = {
  csv: { name: 'CSV', extensions: ['csv'] },
  json: { name: 'JSON', extensions: ['json'] },
};

/** File actions through native open/save dialogs; the service gets the chosen paths. */
export function dialogFileActions(window: BrowserWindow, service: DialogService): FileActions {
  const pickOpen = async (title: string, filters: Electron.FileFilter[]) => {
    const result = await dialog.showOpenDialog(window, {
      title,
      filters,
      properties: ['openFile'],
    });
    return result.canceled ? null : (result.filePaths[0] ?? null);
  };
  const pickSave = async (title: string, defaultName: string, filters: Electron.FileFilter[]) => {
    const result = await dialog.showSaveDialog(window, {
      title,
      defaultPath: defaultName,
      filters,
    });
    return result.canceled || !result.filePath ? null : result.filePath;
  };
  const written = (file: string): FileResult => done('exported', path.basename(file));

  return {
    async openSession() {
      const file = await pickOpen('Open Session', SESSION_FILTERS);
      return file ? service.openSession(file, path.basename(file)) : CANCELLED;
    },
    async saveSessionAs() {
      const stamp = new Date().toISOString().slice(0, 19).replace(/[:T]/g, '-');
      const file = await pickSave(
        'Save Session As',
        `kvscope-${stamp}.kvscope.jsonl.gz`,
        SESSION_FILTERS,
      );
      return file ? service.saveSession(file) : CANCELLED;
    },
    async importCapture() {
      const file = await pickOpen('Import Capture', [
        { name: 'JSON lines capture', extensions: ['jsonl', 'json', 'txt'] },
        { name: 'All files', extensions: ['*'] },
      ]);
      return file ? service.importCapture(file, path.basename(file)) : CANCELLED;
    },
    async exportRatesCsv() {
      const file = await pickSave('Export Rates', 'kvscope-rates.csv', [
        { name: 'CSV', extensions: ['csv'] },
      ]);
      if (!file) return CANCELLED;
      await writeFile(file, await service.ratesCsv());
      return written(file);
    },
    async exportEvents(filter, format) {
      const file = await pickSave('Export Events', `kvscope-events.${format}`, [
        EXPORT_FILTERS[format],
      ]);
      return file ? service.exportEvents(file, filter, format) : CANCELLED;
    },
    async exportChains(filter, format) {
      const file = await pickSave('Export Chains', `kvscope-chains.${format}`, [
        EXPORT_FILTERS[format],
      ]);
      return file ? service.exportChains(file, filter, format) : CANCELLED;
    },
    async exportChartPng(png) {
      const file = await pickSave('Export Chart', 'kvscope-chart.png', [
        { name: 'PNG image', extensions: ['png'] },
      ]);
      if (!file) return CANCELLED;
      await writeFile(file, png);
      return written(file);
    },
  };
}
