import type { Profile, SourceStatus } from '../../shared/api-types';

interface Props {
  profiles: Profile[];
  sources: SourceStatus[];
  /** Ids of profiles with an action in flight. */
  busy: ReadonlySet<string>;
  onConnect(id: string): void;
  onDisconnect(id: string): void;
  onEdit(p: Profile): void;
  onDelete(p: Profile): void;
}

/** Whether any rank of the profile is subscribed. */
function isActive(p: Profile, sources: SourceStatus[]): boolean {
  return sources.some((s) => s.profileId === p.id && s.state !== 'closed');
}

/** The saved connection profiles with connect / disconnect / edit / remove. */
export function ProfileList({
  profiles,
  sources,
  busy,
  onConnect,
  onDisconnect,
  onEdit,
  onDelete,
}: Props) {
  if (profiles.length === 0) {
    return (
      <p className="muted empty-profiles">
        No connections yet. Add one for each engine started with{' '}
        <code>--kv-events-config '{'{"enable_kv_cache_events": true, ...}'}'</code>, or turn on the
        demo.
      </p>
    );
  }
  return (
    <ul className="profile-list" aria-label="Connections">
      {profiles.map((p) => {
        const active = isActive(p, sources);
        return (
          <li key={p.id} className="profile-item" data-testid={`profile-${p.id}`}>
            <div className="profile-main">
              <strong className="ellipsis" title={p.name}>
                {p.name}
              </strong>
              <span
                className="mono muted ellipsis"
                title={p.replayEndpoint ? `${p.endpoint}, replay ${p.replayEndpoint}` : p.endpoint}
              >
                {p.mode === 'bind' ? 'bind ' : ''}
                {p.endpoint}
                {p.dpRanks > 1 ? ` ×${p.dpRanks} ranks` : ''}
                {p.topic ? ` topic “${p.topic}”` : ''}
                {p.replayEndpoint ? ` · replay ${p.replayEndpoint}` : ''}
              </span>
            </div>
            <div className="profile-actions">
              {active ? (
                <button
                  type="button"
                  className="btn"
                  data-testid={`profile-disconnect-${p.id}`}
                  disabled={busy.has(p.id)}
                  onClick={() => onDisconnect(p.id)}
                >
                  Disconnect
                </button>
              ) : (
                <button
                  type="button"
                  className="btn btn-primary"
                  data-testid={`profile-connect-${p.id}`}
                  disabled={busy.has(p.id)}
                  onClick={() => onConnect(p.id)}
                >
                  Connect
                </button>
              )}
              <button
                type="button"
                className="btn btn-ghost"
                data-testid={`profile-edit-${p.id}`}
                aria-label={`Edit ${p.name}`}
                onClick={() => onEdit(p)}
              >
                Edit
              </button>
              <button
                type="button"
                className="btn btn-ghost btn-danger"
                data-testid={`profile-delete-${p.id}`}
                aria-label={`Remove ${p.name}`}
                onClick={() => onDelete(p)}
              >
                Remove
              </button>
            </div>
          </li>
        );
      })}
    </ul>
  );
}
