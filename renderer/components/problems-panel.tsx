interface Props {
  problems: string[];
  onDismiss(): void;
}

/** What could not be loaded from the last opened file, dismissible. */
export function ProblemsPanel({ problems, onDismiss }: Props) {
  return (
    <section className="problems" role="alert" aria-label="Problems" data-testid="problems">
      <div className="problems-head">
        <strong>
          Some of the file was not loaded ({problems.length} problem
          {problems.length === 1 ? '' : 's'})
        </strong>
        <button
          type="button"
          className="btn btn-ghost btn-small"
          aria-label="Dismiss the problems"
          onClick={onDismiss}
        >
          Dismiss
        </button>
      </div>
      <ul>
        {problems.slice(0, 20).map((p, i) => (
          <li key={i}>{p}</li>
        ))}
        {problems.length > 20 && <li>… and {problems.length - 20} more</li>}
      </ul>
    </section>
  );
}
