import { useCopyCue } from '../state/copy-cue';

/** The "copied" cue, a moment at the bottom of the window. */
export function CopyToast() {
  const cue = useCopyCue();
  return (
    <div className="copy-toast-slot" role="status" aria-live="polite">
      {cue && (
        <div
          key={cue.n}
          className={`copy-toast ${cue.ok ? '' : 'copy-toast-error'}`}
          data-testid="copy-cue"
        >
          {cue.text}
        </div>
      )}
    </div>
  );
}
