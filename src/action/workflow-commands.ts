// The runner's side channels, written the way the Actions toolkit writes them:
// workflow commands on stdout (`::error file=…::message`), outputs appended to
// $GITHUB_OUTPUT, the job summary appended to $GITHUB_STEP_SUMMARY. Everything written
// here can carry hostile text (test names, test output, paths): data and properties are
// escaped as @actions/core escapes them, so no text can end a command and start another,
// and every value goes through the secret scrubber first.
import { randomUUID } from "node:crypto";
import { appendFileSync } from "node:fs";
import type { Scrubber } from "../secrets/scrub-secrets.ts";

/** Message text: % first, then the line breaks that would end the command. */
export function escapeData(text: string): string {
  return text.replace(/%/g, "%25").replace(/\r/g, "%0D").replace(/\n/g, "%0A");
}

/** Property values also lose `:` and `,`, which separate properties from each other and from the message. */
export function escapeProperty(text: string): string {
  return escapeData(text).replace(/:/g, "%3A").replace(/,/g, "%2C");
}

export type Annotation = {
  level: "error" | "warning" | "notice";
  message: string;
  file?: string | undefined;
  line?: number | undefined;
  endLine?: number | undefined;
  title?: string | undefined;
};

export type WorkflowChannels = {
  annotate(annotation: Annotation): void;
  setOutput(name: string, value: string): void;
  appendSummary(markdown: string): void;
};

/** One workflow command line (without the newline). */
export function workflowCommand(
  name: string,
  properties: Record<string, string | number | undefined>,
  message: string,
): string {
  const props = Object.entries(properties)
    .filter((entry): entry is [string, string | number] => entry[1] !== undefined && entry[1] !== "")
    .map(([key, value]) => `${key}=${escapeProperty(String(value))}`)
    .join(",");
  return `::${name}${props ? ` ${props}` : ""}::${escapeData(message)}`;
}

/** `name<<delimiter` form: the delimiter is random and checked against the value, so a value cannot close it early. */
export function outputEntry(name: string, value: string): string {
  if (!/^[A-Za-z_][A-Za-z0-9_-]*$/.test(name)) throw new Error(`not an output name: ${name}`);
  const delimiter = `ghadelimiter_${randomUUID()}`;
  if (name.includes(delimiter) || value.includes(delimiter)) throw new Error("the output value contains its delimiter");
  return `${name}<<${delimiter}\n${value}\n${delimiter}\n`;
}

export function workflowChannels(
  env: NodeJS.ProcessEnv,
  scrub: Scrubber,
  write: (line: string) => void = (line) => process.stdout.write(line),
): WorkflowChannels {
  return {
    annotate(a) {
      write(
        `${workflowCommand(a.level, { title: a.title && scrub(a.title), file: a.file && scrub(a.file), line: a.line, endLine: a.endLine }, scrub(a.message))}\n`,
      );
    },
    setOutput(name, value) {
      if (!env.GITHUB_OUTPUT)
        throw new Error("GITHUB_OUTPUT is not set: the action runs inside a GitHub Actions job step");
      appendFileSync(env.GITHUB_OUTPUT, outputEntry(name, scrub(value)));
    },
    appendSummary(markdown) {
      if (env.GITHUB_STEP_SUMMARY) appendFileSync(env.GITHUB_STEP_SUMMARY, `${scrub(markdown)}\n`);
    },
  };
}
