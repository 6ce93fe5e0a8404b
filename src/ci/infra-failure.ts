// Failures of the CI machinery rather than of the code: a lost runner, the network to a
// package registry, a full disk. Recognised from the job log (and the runner's own error
// lines), so the bot explains them instead of "repairing" code that is not broken.
export type InfraFailureKind = "runner-lost" | "registry-network" | "out-of-disk" | "out-of-memory-runner";

/** `lineNumber`: 1-based, in the log as given. */
export type InfraFailure = { kind: InfraFailureKind; line: string; lineNumber: number; explanation: string };

const REGISTRY = String.raw`(registry\.npmjs\.org|registry\.yarnpkg\.com|pypi\.org|files\.pythonhosted\.org|repo\.maven\.apache\.org|repo1\.maven\.org|plugins\.gradle\.org|services\.gradle\.org|proxy\.golang\.org|sum\.golang\.org|crates\.io|index\.crates\.io|rubygems\.org|nuget\.org|github\.com|objects\.githubusercontent\.com|ghcr\.io|registry-1\.docker\.io|deb\.debian\.org|archive\.ubuntu\.com|azure\.archive\.ubuntu\.com)`;

/** A 502/503/504 said as an HTTP status, not any number (a download rate of "504 B/s" is not one). */
const HTTP_5XX = String.raw`(?:returned error|status(?: code)?|HTTP(?:/[\d.]+)?|error|response code|code)[: ]+50[234]\b`;

const PATTERNS: Array<{ kind: InfraFailureKind; pattern: RegExp; explanation: string }> = [
  {
    kind: "runner-lost",
    pattern:
      /The runner has received a shutdown signal|lost communication with the server|The hosted runner .* lost communication|The self-hosted runner: .* lost communication|Runner \S+ did not connect|The job was not acquired by Runner/i,
    explanation: "the runner was lost (shut down or disconnected) while the job ran",
  },
  {
    kind: "out-of-disk",
    pattern: /No space left on device|ENOSPC|System\.IO\.IOException: No space left|You are running out of disk space/i,
    explanation: "the runner ran out of disk space",
  },
  {
    kind: "out-of-memory-runner",
    pattern:
      /The runner has received a shutdown signal.*memory|Runner .* ran out of memory|exit code 137.*(OOM|Killed)/i,
    explanation: "the runner ran out of memory",
  },
  {
    kind: "registry-network",
    pattern: new RegExp(
      String.raw`(ECONNRESET|ETIMEDOUT|EAI_AGAIN|ENOTFOUND|ECONNREFUSED|socket hang up|Could not resolve host|Temporary failure in name resolution|Connection (timed out|reset by peer)|Read timed out|${HTTP_5XX}|Service Unavailable|Bad Gateway|Gateway Time-?out|TLS handshake timeout|Failed to establish a new connection)[^\n]*${REGISTRY}|${REGISTRY}[^\n]*(ECONNRESET|ETIMEDOUT|EAI_AGAIN|ENOTFOUND|ECONNREFUSED|socket hang up|Could not resolve host|Temporary failure in name resolution|Connection (timed out|reset by peer)|Read timed out|${HTTP_5XX}|Service Unavailable|Bad Gateway|Gateway Time-?out|TLS handshake timeout|Failed to establish a new connection)`,
      "i",
    ),
    explanation: "the network to a package registry failed while installing dependencies",
  },
];

/** The first infrastructure failure the log shows, with the line that shows it. */
export function recogniseInfraFailure(cleanLog: string): InfraFailure | undefined {
  const lines = cleanLog.split("\n");
  for (const { kind, pattern, explanation } of PATTERNS) {
    const index = lines.findIndex((l) => pattern.test(l));
    if (index >= 0)
      return { kind, line: (lines[index] ?? "").trim().slice(0, 300), lineNumber: index + 1, explanation };
  }
  return undefined;
}
