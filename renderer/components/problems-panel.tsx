import { problemCount } from '../../shared/problem-list';

interface Props {
  problems: string[];
  /** The live view's problems (a full disk, a recordings folder it could not read): no file was opened. */
  live: boolean;
  onDismiss(): void;
}

/** The view's problems, dismissible: what could not be loaded from a file, or what went wrong live. */
export function ProblemsPanel({ problems, live, onDismiss }: Props) {
  const n = problemCount(problems);
  const count = `${n.toLocaleString('en-US')} problem${n === 1 ? '' : 's'}`;
  return (
    <section className="problems" role="alert" aria-label="Problems" data-testid="problems">
      <div className="problems-head">
        <strong>
          {live ? `The live view has ${count}` : `Some of the file was not loaded (${count})`}
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
        {/* Bounded where it is made (the first 20 line problems, then a closing count): all shown, scrolled. */}
        {problems.map((p, i) => (
          <li key={i}>{p}</li>
        ))}
      </ul>
    </section>
  );
}
