import { useCallback, useEffect, useRef, useState } from 'react';
import type { Profile, ProfileInput } from '../../shared/api-types';
import { bridge, errorText } from '../bridge/bridge';
import type { Notify } from '../components/file-actions';
import { useFrameState } from '../state/frames';
import { ProfileForm } from './profile-form';
import { ProfileList } from './profile-list';
import { RecentRecordings } from './recent-recordings';
import { SourceCard } from './source-card';

interface Props {
  notify: Notify;
}

/** Connection profiles, the demo switch, and the health of every source. */
export function ConnectionsView({ notify }: Props) {
  const { frame, receivedAt } = useFrameState();
  const [profiles, setProfiles] = useState<Profile[] | null>(null);
  const [editing, setFormOf] = useState<Profile | 'new' | null>(null);
  // What opened the form (Add connection, an Edit button) has the focus again once it closes.
  const opener = useRef<HTMLElement | null>(null);
  const setEditing = (what: Profile | 'new' | null) => {
    if (what !== null && document.activeElement instanceof HTMLElement)
      opener.current = document.activeElement;
    setFormOf(what);
  };
  useEffect(() => {
    if (editing !== null) return;
    opener.current?.focus();
    opener.current = null;
  }, [editing]);
  // Ids with an action in flight: two actions on different profiles may overlap.
  const [busy, setBusy] = useState<ReadonlySet<string>>(new Set());
  const request = useRef(0);

  // Only the latest request's answer is shown: an older, slower one never overwrites it.
  const reload = useCallback(async () => {
    const n = ++request.current;
    try {
      const ps = await bridge().listProfiles();
      if (n === request.current) setProfiles(ps);
    } catch (e) {
      if (n === request.current) notify(`Could not list the connections: ${errorText(e)}`, 'error');
    }
  }, [notify]);
  useEffect(() => {
    let alive = true;
    const n = ++request.current;
    bridge()
      .listProfiles()
      .then(
        (ps) => {
          if (alive && n === request.current) setProfiles(ps);
        },
        (e: unknown) => notify(`Could not list the connections: ${errorText(e)}`, 'error'),
      );
    return () => {
      alive = false;
    };
  }, [notify]);

  const act = async (id: string, label: string, fn: () => Promise<void>) => {
    setBusy((b) => new Set(b).add(id));
    try {
      await fn();
    } catch (e) {
      notify(`${label} failed: ${errorText(e)}`, 'error');
    } finally {
      setBusy((b) => {
        const next = new Set(b);
        next.delete(id);
        return next;
      });
    }
  };
  const save = async (p: ProfileInput & { id?: string }) => {
    const saved = await bridge().saveProfile(p);
    setEditing(null);
    await reload();
    if (p.id !== undefined) {
      notify(`Saved connection ${saved.name}`);
      return;
    }
    // A connection is added to be watched: it connects at once, no second click. Its card shows
    // how far the connect got; the notice outlives that, so it tells only of the add.
    notify(`Added connection ${saved.name}`);
    await act(saved.id, 'Connect', () => bridge().connect(saved.id));
  };
  const remove = (p: Profile) => {
    // Named by its endpoint too: two connections may share a name.
    const what = `“${p.name}” (${p.endpoint})`;
    if (!window.confirm(`Remove the connection ${what}? Its sources are disconnected.`)) return;
    void act(p.id, 'Remove', async () => {
      await bridge().deleteProfile(p.id);
      await reload();
    });
  };

  const demo = frame?.view.demo ?? false;
  const live = frame?.view.kind !== 'session';
  const sources = frame?.sources ?? [];

  return (
    <div className="connections">
      <section className="panel">
        <div className="panel-head">
          <h2>Connections</h2>
          <label className="switch" title="A built-in simulated engine, to try the app without one">
            <input
              type="checkbox"
              role="switch"
              data-testid="demo-toggle"
              checked={demo}
              disabled={!live || busy.has('demo')}
              onChange={(e) => {
                const on = e.target.checked;
                void act('demo', 'Demo', () => bridge().setDemo(on));
              }}
            />
            Demo engine
          </label>
          <button
            type="button"
            className="btn"
            data-testid="profile-add"
            onClick={() => setEditing('new')}
            disabled={editing != null}
          >
            Add connection
          </button>
        </div>
        {!live && (
          <p className="muted">A saved session is open: connections apply to the live view.</p>
        )}
        {profiles == null ? (
          <p className="muted">Loading…</p>
        ) : (
          <ProfileList
            profiles={profiles}
            sources={sources}
            busy={busy}
            onConnect={(id) => void act(id, 'Connect', () => bridge().connect(id))}
            onDisconnect={(id) => void act(id, 'Disconnect', () => bridge().disconnect(id))}
            onEdit={(p) => setEditing(p)}
            onDelete={remove}
          />
        )}
      </section>
      {editing != null && (
        <ProfileForm
          key={editing === 'new' ? 'new' : editing.id}
          editing={editing === 'new' ? null : editing}
          onSave={save}
          onCancel={() => setEditing(null)}
        />
      )}
      <section className="panel" aria-label="Sources">
        <h2>Sources</h2>
        {sources.length === 0 ? (
          <p className="muted">No sources. Connect a profile or turn on the demo.</p>
        ) : (
          <div className="source-grid">
            {sources.map((s) => (
              <SourceCard key={s.id} s={s} wallNow={receivedAt} />
            ))}
          </div>
        )}
      </section>
      <RecentRecordings notify={notify} />
    </div>
  );
}
