import { describe, expect, it } from 'vitest';
import {
  isControlTarget,
  shortcutAction,
  shortcutList,
  type KeyContext,
} from '../../renderer/lib/shortcuts';

const key = (
  k: string,
  mods: Partial<Record<'ctrl' | 'meta' | 'alt' | 'shift', boolean>> = {},
) => ({
  key: k,
  ctrlKey: mods.ctrl ?? false,
  metaKey: mods.meta ?? false,
  altKey: mods.alt ?? false,
  shiftKey: mods.shift ?? false,
});
const browser: KeyContext = { typing: false, onControl: false, desktop: false, views: 5 };

describe('shortcutAction', () => {
  it('opens, saves and switches views with Ctrl or Cmd in the browser', () => {
    expect(shortcutAction(key('o', { ctrl: true }), browser)).toEqual({ kind: 'open' });
    expect(shortcutAction(key('s', { meta: true }), browser)).toEqual({ kind: 'save' });
    expect(shortcutAction(key('4', { ctrl: true }), browser)).toEqual({ kind: 'view', index: 3 });
    expect(shortcutAction(key('6', { ctrl: true }), browser)).toBeNull();
    expect(shortcutAction(key('c', { ctrl: true }), browser)).toBeNull();
  });

  it('leaves Ctrl+O, Ctrl+S and Ctrl+1..N to the desktop menu, so they never act twice', () => {
    const desktop = { ...browser, desktop: true };
    for (const k of ['o', 's', '1'])
      expect(shortcutAction(key(k, { ctrl: true }), desktop)).toBeNull();
    // Space and ? are the page's own in both modes.
    expect(shortcutAction(key(' '), desktop)).toEqual({ kind: 'pause' });
    expect(shortcutAction(key('?', { shift: true }), desktop)).toEqual({ kind: 'help' });
  });

  it('keeps Space and ? as text while typing, and Space for the button or row in focus', () => {
    const typing = { ...browser, typing: true };
    expect(shortcutAction(key(' '), typing)).toBeNull();
    expect(shortcutAction(key('?', { shift: true }), typing)).toBeNull();
    expect(shortcutAction(key(' '), { ...browser, onControl: true })).toBeNull();
    expect(shortcutAction(key('?', { shift: true }), { ...browser, onControl: true })).toEqual({
      kind: 'help',
    });
    // Ctrl+S still saves from a text field: it is not text.
    expect(shortcutAction(key('s', { ctrl: true }), typing)).toEqual({ kind: 'save' });
  });

  it("leaves Space to a button, a box or a tab not selected; a row's and the selected tab's is the pause", () => {
    // Stand-ins for focused elements: a tag and attributes.
    const el = (tagName: string, attrs: Record<string, string> = {}) => ({
      tagName,
      getAttribute: (name: string) => attrs[name] ?? null,
    });
    expect(isControlTarget(el('BUTTON'))).toBe(true);
    expect(isControlTarget(el('INPUT', { type: 'checkbox' }))).toBe(true);
    expect(isControlTarget(el('BUTTON', { role: 'tab', 'aria-selected': 'false' }))).toBe(true);
    // A tab just clicked keeps the focus: Space there pauses the view it shows.
    expect(isControlTarget(el('BUTTON', { role: 'tab', 'aria-selected': 'true' }))).toBe(false);
    // Enter opens a row; Space on it pauses, as the shortcuts list says.
    expect(isControlTarget(el('DIV', { role: 'row' }))).toBe(false);
    expect(isControlTarget(el('DIV'))).toBe(false);
  });

  it('lists every shortcut it answers, with ⌘ on a Mac', () => {
    const list = shortcutList(['Overview', 'Events'], true);
    const keys = list.map((s) => s.keys);
    expect(keys).toEqual(expect.arrayContaining(['⌘+O', '⌘+S', 'Space', '⌘+1', '⌘+2', '?']));
    expect(shortcutList(['Overview'], false).map((s) => s.keys)).toContain('Ctrl+O');
  });
});
