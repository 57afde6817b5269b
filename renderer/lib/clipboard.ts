// Copying text: the async Clipboard API (a secure context: the desktop window, and the browser
// mode on 127.0.0.1 / localhost), else the older copy command through a hidden text area.

/** Puts `text` on the clipboard; true when it got there. */
export async function copyText(text: string): Promise<boolean> {
  try {
    if (navigator.clipboard && window.isSecureContext) {
      await navigator.clipboard.writeText(text);
      return true;
    }
  } catch {
    // Refused (no permission, the page not focused): the fallback may still work.
  }
  return copyWithCommand(text);
}

function copyWithCommand(text: string): boolean {
  const area = document.createElement('textarea');
  area.value = text;
  area.setAttribute('readonly', '');
  area.style.position = 'fixed';
  area.style.opacity = '0';
  const focused = document.activeElement as HTMLElement | null;
  document.body.appendChild(area);
  area.select();
  let ok = false;
  try {
    // Deprecated but still the only way outside a secure context.
    ok = document.execCommand('copy');
  } catch {
    ok = false;
  }
  area.remove();
  focused?.focus({ preventScroll: true });
  return ok;
}
