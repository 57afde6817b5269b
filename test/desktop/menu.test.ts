// The native menu's accelerators dispatch to the right view and action (Menu stood in for).
import type { MenuItemConstructorOptions } from 'electron';
import { describe, expect, it, vi } from 'vitest';
import type { MenuCommand } from '../../shared/api-types';
import { CANCELLED } from '../../shared/file-result';

let template: MenuItemConstructorOptions[] = [];
vi.mock('electron', () => ({
  Menu: {
    buildFromTemplate: (t: MenuItemConstructorOptions[]) => {
      template = t;
      return t;
    },
    setApplicationMenu: () => undefined,
  },
  app: { isPackaged: true },
  shell: { openExternal: () => Promise.resolve(), openPath: () => Promise.resolve('') },
}));

const { installMenu } = await import('../../electron/main/menu');

/** Every item of the template, submenus flattened. */
function items(list: MenuItemConstructorOptions[]): MenuItemConstructorOptions[] {
  return list.flatMap((i) => [i, ...(Array.isArray(i.submenu) ? items(i.submenu) : [])]);
}

function install() {
  const commands: MenuCommand[] = [];
  const actions: string[] = [];
  const file = (name: string) => () => {
    actions.push(name);
    return Promise.resolve(CANCELLED);
  };
  let reported = 0;
  installMenu({
    files: {
      openSession: file('open'),
      saveSessionAs: file('save-as'),
      importCapture: file('import'),
      exportRatesCsv: file('rates-csv'),
      exportChartPng: file('chart-png'),
      exportEvents: file('events'),
      exportChains: file('chains'),
    },
    command: (c) => commands.push(c),
    report: () => void reported++,
    logsFolder: '/tmp',
  });
  const click = (accelerator: string) => {
    const item = items(template).find((i) => i.accelerator === accelerator);
    if (!item?.click) throw new Error(`no menu item with ${accelerator}`);
    (item.click as () => void)();
  };
  return { commands, actions, click, reported: () => reported };
}

describe('the application menu', () => {
  it('sends each view accelerator to its view', () => {
    const m = install();
    for (const key of ['1', '2', '3', '4', '5']) m.click(`CmdOrCtrl+${key}`);
    expect(m.commands).toEqual([
      { kind: 'view', view: 'overview' },
      { kind: 'view', view: 'insights' },
      { kind: 'view', view: 'chains' },
      { kind: 'view', view: 'events' },
      { kind: 'view', view: 'connections' },
    ]);
  });

  it('runs the file actions in main and reports each outcome', () => {
    const m = install();
    m.click('CmdOrCtrl+O');
    m.click('CmdOrCtrl+S');
    m.click('CmdOrCtrl+I');
    expect(m.actions).toEqual(['open', 'save-as', 'import']);
    expect(m.reported()).toBe(3);
  });

  it('asks the renderer for the chart PNG (the chart lives there)', () => {
    const m = install();
    m.click('CmdOrCtrl+E');
    expect(m.commands).toEqual([{ kind: 'export-png' }]);
    expect(m.actions).toEqual([]);
  });

  it('has no developer tools in a packaged app', () => {
    install();
    expect(items(template).some((i) => i.role === 'toggleDevTools')).toBe(false);
  });
});
