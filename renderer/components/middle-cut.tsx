/** Characters kept whole at a cut text's end: a port (":46200"), an id's end. */
const TAIL = 8;

/**
 * A name cut in its middle where its box is too narrow: the start gives way (with an ellipsis) and
 * the last characters stay, which are what tells apart names alike ("tcp://127.0.0.1:46200" and
 * ":46210", a shared name's id). Whole when it fits; the element's title has it anyway.
 */
export function MiddleCut({ text }: { text: string }) {
  if (text.length <= 2 * TAIL) return <span className="ellipsis">{text}</span>;
  return (
    <span className="middle-cut">
      <span className="ellipsis">{text.slice(0, -TAIL)}</span>
      <span className="middle-cut-tail">{text.slice(-TAIL)}</span>
    </span>
  );
}
