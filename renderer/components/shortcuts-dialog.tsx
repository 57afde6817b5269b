import { useEffect, useRef } from 'react';
import { shortcutList } from '../lib/shortcuts';
import { VIEWS } from './view-tabs';

interface Props {
  onClose(): void;
}

const MAC = /Mac|iPhone|iPad/.test(navigator.platform);

/** Every keyboard shortcut (`?` opens it, Escape closes it). */
export function ShortcutsDialog({ onClose }: Props) {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    ref.current?.showModal();
  }, []);
  return (
    <dialog
      ref={ref}
      className="dialog"
      aria-labelledby="shortcuts-title"
      data-testid="shortcuts-dialog"
      onClose={onClose}
    >
      <h2 id="shortcuts-title">Keyboard shortcuts</h2>
      <dl className="kv shortcuts">
        {shortcutList(
          VIEWS.map((v) => v.label),
          MAC,
        ).map((s) => (
          <div key={s.keys} className="kv-pair">
            <dt>
              <kbd>{s.keys}</kbd>
            </dt>
            <dd>{s.what}</dd>
          </div>
        ))}
      </dl>
      <form method="dialog">
        <button className="btn" autoFocus>
          Close
        </button>
      </form>
    </dialog>
  );
}
