import { useEffect, useRef, useState } from 'react';
import type { AppInfo } from '../../shared/api-types';
import { bridge, errorText } from '../bridge/bridge';

interface Props {
  onClose(): void;
}

/** Version, transport and where the wire format is documented. */
export function AboutDialog({ onClose }: Props) {
  const [info, setInfo] = useState<AppInfo | null>(null);
  const [error, setError] = useState<string | null>(null);
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    ref.current?.showModal();
    bridge()
      .getInfo()
      .then(setInfo, (e: unknown) => setError(errorText(e)));
  }, []);
  return (
    <dialog ref={ref} className="dialog" aria-labelledby="about-title" onClose={onClose}>
      <h2 id="about-title">KV Scope</h2>
      <p>See what an inference engine’s prefix (KV) cache is doing.</p>
      {info && (
        <dl className="kv">
          <dt>Version</dt>
          <dd data-testid="about-version">{info.version}</dd>
          <dt>Transport</dt>
          <dd>{info.transport === 'ipc' ? 'desktop (IPC)' : 'browser (WebSocket)'}</dd>
          <dt>Wire format</dt>
          <dd className="wrap">{info.wireFormatUrl}</dd>
        </dl>
      )}
      {error && <p className="error">{error}</p>}
      <form method="dialog">
        <button className="btn" autoFocus>
          Close
        </button>
      </form>
    </dialog>
  );
}
