// Splits a configured command line into argv with POSIX-like quoting, and nothing else:
// no variables, globs, pipes or substitutions, because no shell ever runs it.
export function splitCommand(line: string): string[] {
  const args: string[] = [];
  let current = "";
  let quote: "'" | '"' | undefined;
  let started = false;
  for (let i = 0; i < line.length; i++) {
    const ch = line[i] as string;
    if (quote) {
      if (ch === quote) quote = undefined;
      else if (ch === "\\" && quote === '"' && i + 1 < line.length) current += line[++i];
      else current += ch;
    } else if (ch === "'" || ch === '"') {
      quote = ch;
      started = true;
    } else if (ch === "\\" && i + 1 < line.length) {
      current += line[++i];
      started = true;
    } else if (/\s/.test(ch)) {
      if (started) args.push(current);
      current = "";
      started = false;
    } else if ("|&;<>`$".includes(ch)) {
      throw new Error(`shell syntax "${ch}" is not supported in a test command: name one program and its arguments`);
    } else {
      current += ch;
      started = true;
    }
  }
  if (quote) throw new Error("unclosed quote in the test command");
  if (started) args.push(current);
  return args;
}
