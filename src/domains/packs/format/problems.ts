/** A problem found in a pack folder: the file it is in (relative to the folder), the 1-based line and what is wrong. */
export interface PackProblem {
  file: string;
  line: number;
  message: string;
}

/** Sorts problems by file, then line, then message, so that a refusal reads top to bottom and is stable. */
export function sortProblems(problems: PackProblem[]): PackProblem[] {
  return [...problems].sort(
    (a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : a.line - b.line || (a.message < b.message ? -1 : a.message > b.message ? 1 : 0)),
  );
}
