import { useEffect, useRef, useState } from 'react';
import type { FormEvent } from 'react';
import type { Profile, ProfileInput } from '../../shared/api-types';
import { errorText } from '../bridge/bridge';
import { normalizeProfile, PROFILE_LIMITS, profileErrors } from '../../shared/profile-rules';

export const EMPTY_PROFILE: ProfileInput = {
  name: '',
  endpoint: 'tcp://127.0.0.1:5557',
  mode: 'connect',
  topic: '',
  replayEndpoint: null,
  dpRanks: 1,
  metricsUrl: null,
};

interface Props {
  /** The profile being edited, or null for a new one. */
  editing: Profile | null;
  onSave(p: ProfileInput & { id?: string }): Promise<void>;
  onCancel(): void;
}

/** Add or edit a connection profile, with a message under each field that is not right. */
export function ProfileForm({ editing, onSave, onCancel }: Props) {
  const [p, setP] = useState<ProfileInput>(editing ?? EMPTY_PROFILE);
  const [dpText, setDpText] = useState(String((editing ?? EMPTY_PROFILE).dpRanks));
  const [touched, setTouched] = useState(false);
  const [saving, setSaving] = useState(false);
  const [saveError, setSaveError] = useState<string | null>(null);
  const current = { ...p, dpRanks: Number(dpText) };
  const errors = profileErrors(current);
  const show = (k: keyof ProfileInput) => (touched ? errors[k] : undefined);
  // Opened from a button that is disabled while the form is open: the focus would fall to the
  // page, and a keyboard user would Tab past the form. It starts at the first field.
  const nameInput = useRef<HTMLInputElement>(null);
  useEffect(() => nameInput.current?.focus(), []);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setTouched(true);
    if (Object.keys(errors).length > 0) return;
    setSaving(true);
    setSaveError(null);
    try {
      await onSave({ ...normalizeProfile(current), ...(editing ? { id: editing.id } : {}) });
    } catch (err) {
      setSaveError(errorText(err));
    } finally {
      setSaving(false);
    }
  };

  const field = (k: keyof ProfileInput, label: string, input: React.ReactNode, hint?: string) => (
    <label className={`field ${show(k) ? 'invalid' : ''}`}>
      <span>{label}</span>
      {input}
      {show(k) ? (
        <span className="field-error" id={`err-${k}`} data-testid={`profile-error-${k}`}>
          {show(k)}
        </span>
      ) : hint ? (
        <span className="field-hint">{hint}</span>
      ) : null}
    </label>
  );

  return (
    <form
      className="panel profile-form"
      data-testid="profile-form"
      onSubmit={(e) => void submit(e)}
      onKeyDown={(e) => {
        // Escape leaves the form unsaved, as it closes a detail.
        if (e.key !== 'Escape') return;
        e.preventDefault();
        e.stopPropagation();
        onCancel();
      }}
      noValidate
    >
      <h2>{editing ? `Edit ${editing.name}` : 'New connection'}</h2>
      <div className="form-grid">
        {field(
          'name',
          'Name',
          <input
            ref={nameInput}
            data-testid="profile-name"
            value={p.name}
            aria-invalid={!!show('name')}
            onChange={(e) => setP({ ...p, name: e.target.value })}
            placeholder="e.g. gpu-box-1"
          />,
        )}
        {field(
          'endpoint',
          'Endpoint',
          <input
            data-testid="profile-endpoint"
            className="mono"
            spellCheck={false}
            value={p.endpoint}
            aria-invalid={!!show('endpoint')}
            onChange={(e) => setP({ ...p, endpoint: e.target.value })}
          />,
          'The engine’s kv-events endpoint (ZeroMQ PUB).',
        )}
        {field(
          'mode',
          'Socket',
          <select
            data-testid="profile-mode"
            value={p.mode}
            onChange={(e) => setP({ ...p, mode: e.target.value === 'bind' ? 'bind' : 'connect' })}
          >
            <option value="connect">connect (the engine binds)</option>
            <option value="bind">bind (the publisher connects out)</option>
          </select>,
        )}
        {field(
          'topic',
          'Topic',
          <input
            data-testid="profile-topic"
            className="mono"
            spellCheck={false}
            value={p.topic}
            onChange={(e) => setP({ ...p, topic: e.target.value })}
            placeholder="empty: every topic"
          />,
        )}
        {field(
          'replayEndpoint',
          'Replay endpoint',
          <input
            data-testid="profile-replay"
            className="mono"
            spellCheck={false}
            value={p.replayEndpoint ?? ''}
            aria-invalid={!!show('replayEndpoint')}
            onChange={(e) => setP({ ...p, replayEndpoint: e.target.value })}
            placeholder="optional, e.g. tcp://127.0.0.1:5558"
          />,
          'Lets missed messages be fetched again.',
        )}
        {field(
          'dpRanks',
          'Data-parallel ranks',
          <input
            data-testid="profile-dp"
            type="number"
            min={1}
            max={PROFILE_LIMITS.dpRanksMax}
            value={dpText}
            aria-invalid={!!show('dpRanks')}
            onChange={(e) => setDpText(e.target.value)}
          />,
          'Rank r publishes on the base port + r, and answers replay on the replay port + r.',
        )}
        {field(
          'metricsUrl',
          'Engine metrics URL',
          <input
            data-testid="profile-metrics-url"
            className="mono"
            spellCheck={false}
            value={p.metricsUrl ?? ''}
            aria-invalid={!!show('metricsUrl')}
            onChange={(e) => setP({ ...p, metricsUrl: e.target.value })}
            placeholder="optional, e.g. http://127.0.0.1:8000/metrics"
          />,
          'vLLM’s own /metrics, read beside the stream (rank r: engine="r").',
        )}
      </div>
      {saveError && <p className="error">Not saved: {saveError}</p>}
      <div className="form-actions">
        <button
          type="submit"
          className="btn btn-primary"
          data-testid="profile-save"
          disabled={saving}
        >
          {editing ? 'Save changes' : 'Add connection'}
        </button>
        <button type="button" className="btn" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}
