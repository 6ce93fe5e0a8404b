// A file that exists on GitHub but cannot be read as text: a directory or a link in its
// place, a submodule, too large for the contents API, not UTF-8. Not a missing file (that
// is `undefined`) and not an outage (that is the HTTP error, retried or reported as one).
export class UnreadableFileError extends Error {
  readonly path: string;
  /** What is wrong, as the end of "<path> cannot be read: …". */
  readonly reason: string;
  constructor(path: string, reason: string) {
    super(`${path} cannot be read: ${reason}`);
    this.name = "UnreadableFileError";
    this.path = path;
    this.reason = reason;
  }
}
