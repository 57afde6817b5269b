// The write errors whose remedy differs: a disk that is full or may not grow wants space freed, a
// folder that may not be written wants its permissions, and advice for one does not fit the other.

/** Error codes of a disk that is full or may not grow. */
export const NO_SPACE = new Set(['ENOSPC', 'EDQUOT', 'EFBIG']);
/** Error codes of a file or folder that may not be written. */
export const NOT_WRITABLE = new Set(['EACCES', 'EPERM', 'EROFS']);

/** Whether an error's message (Node's start "ENOSPC: ...") names one of the codes. */
export function messageNames(codes: ReadonlySet<string>, message: string): boolean {
  return [...codes].some((code) => new RegExp(`\\b${code}\\b`).test(message));
}
