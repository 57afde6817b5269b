// The keyboard shortcuts: the list the `?` dialog shows, and which action a key press asks for.
// Pure: the App reads the key and where it was pressed, this says what it means.

/** What a shortcut asks for. */
export type ShortcutAction =
  | { kind: 'view'; index: number }
  | { kind: 'open' }
  | { kind: 'save' }
  | { kind: 'pause' }
  | { kind: 'help' };

/** The key press, as much of it as the decision needs. */
export interface KeyPress {
  key: string;
  ctrlKey: boolean;
  metaKey: boolean;
  altKey: boolean;
  shiftKey: boolean;
}

/** Where the key was pressed. */
export interface KeyContext {
  /** Focus in a text field, a select or an editable element: keys are text there. */
  typing: boolean;
  /** Focus on a button, a tab not selected, a checkbox: Space is theirs. */
  onControl: boolean;
  /** The desktop app, whose menu accelerators already take Ctrl+O, Ctrl+S and Ctrl+1..N. */
  desktop: boolean;
  /** How many views Ctrl+1..N reaches. */
  views: number;
}

/** One line of the shortcuts dialog. */
export interface ShortcutHelp {
  keys: string;
  what: string;
}

/** Every shortcut, as the `?` dialog lists it ("Ctrl" reads "⌘" on a Mac). */
export function shortcutList(views: readonly string[], mac: boolean): ShortcutHelp[] {
  const mod = mac ? '⌘' : 'Ctrl';
  return [
    { keys: `${mod}+O`, what: 'Open a session' },
    { keys: `${mod}+S`, what: 'Save the session' },
    { keys: 'Space', what: 'Pause or resume the view (Overview charts, Chains, Events)' },
    ...views.map((v, i) => ({ keys: `${mod}+${i + 1}`, what: `Show ${v}` })),
    { keys: '↑ ↓ Home End PgUp PgDn', what: 'Move between rows of a list' },
    { keys: 'Enter', what: 'Open the row (a chain, an event)' },
    {
      keys: `${mod}+C`,
      what: "Copy the hashes of the row in focus: an event's blocks, a chain's leaf (its id), a block",
    },
    { keys: 'Escape', what: 'Close a detail pane or a dialog' },
    { keys: '?', what: 'This list' },
  ];
}

/** The action a key press asks for, or null when it is not a shortcut here. */
export function shortcutAction(e: KeyPress, ctx: KeyContext): ShortcutAction | null {
  const mod = (e.ctrlKey || e.metaKey) && !e.altKey;
  if (mod && !e.shiftKey) {
    // In the desktop app the menu's accelerators take these: answering too would act twice.
    if (ctx.desktop) return null;
    const key = e.key.toLowerCase();
    if (key === 'o') return { kind: 'open' };
    if (key === 's') return { kind: 'save' };
    const n = Number(e.key);
    if (Number.isInteger(n) && n >= 1 && n <= ctx.views) return { kind: 'view', index: n - 1 };
    return null;
  }
  if (e.ctrlKey || e.metaKey || e.altKey || ctx.typing) return null;
  if (e.key === '?') return { kind: 'help' };
  if (e.key === ' ' && !e.shiftKey && !ctx.onControl) return { kind: 'pause' };
  return null;
}

/** Whether an element takes typed text (keys are text there, not shortcuts). */
export function isTypingTarget(el: Element | null): boolean {
  if (!el) return false;
  if (el instanceof HTMLElement && el.isContentEditable) return true;
  if (el.tagName === 'TEXTAREA' || el.tagName === 'SELECT') return true;
  if (el.tagName !== 'INPUT') return false;
  const type = (el as HTMLInputElement).type;
  return !['checkbox', 'radio', 'button', 'submit', 'reset', 'range', 'color'].includes(type);
}

/**
 * Whether Space on this element is its own (press a button, tick a box, choose another tab). Not
 * a row's (Enter opens it; Space there is the view's pause, as the shortcuts list says), nor the
 * selected tab's: a tab clicked keeps the focus, and Space on it would do nothing.
 */
export function isControlTarget(el: Pick<Element, 'tagName' | 'getAttribute'> | null): boolean {
  if (!el) return false;
  const role = el.getAttribute('role');
  // Before the tag: a tab is a button element.
  if (role === 'tab') return el.getAttribute('aria-selected') !== 'true';
  if (['BUTTON', 'A', 'SUMMARY', 'INPUT'].includes(el.tagName)) return true;
  return role !== null && ['button', 'switch', 'checkbox', 'link'].includes(role);
}
