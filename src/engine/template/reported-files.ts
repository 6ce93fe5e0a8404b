// Files named by what the tests wrote (traces, V8 coverage) are untrusted: a test can forge
// them. Only editable files of the worktree are kept; the others are dropped and named.
import { editableRepoFile, repoRelativePath, UnsafePathError } from "../../workspace/safe-path.ts";
import type { TestSpectrum } from "./ochiai.ts";

/** A dropped path is shown cut to this many characters. */
const MAX_SHOWN = 200;

/** Per-test lines, and the files the run named that were dropped (outside the worktree, symbolic links, not regular files). */
export type Spectra = { spectra: TestSpectrum[]; dropped: string[] };

export type ReportedFileFilter = {
  /** The repository-relative path when `file` (relative, or absolute with `absolute`) is an editable worktree file. */
  accept(file: string, options?: { absolute?: boolean }): string | undefined;
  dropped(): string[];
};

export function reportedFileFilter(workspace: string): ReportedFileFilter {
  const verdicts = new Map<string, string | undefined>();
  return {
    accept(file, options = {}) {
      if (verdicts.has(file)) return verdicts.get(file);
      let relative: string | undefined;
      try {
        relative = options.absolute ? repoRelativePath(workspace, file) : file;
        editableRepoFile(workspace, relative);
      } catch (error) {
        if (!(error instanceof UnsafePathError)) throw error;
        relative = undefined;
      }
      verdicts.set(file, relative);
      return relative;
    },
    dropped: () =>
      [...verdicts]
        .filter(([, relative]) => relative === undefined)
        // Named by the run (a coverage URL, a source map's `sources`): shown cut to a line's length.
        .map(([file]) => (file.length > MAX_SHOWN ? `${file.slice(0, MAX_SHOWN)}…` : file))
        .sort(),
  };
}
