// `npm run suite:cpu -- [vitest arguments]`: where the test suite's CPU goes. Runs `vitest run`
// (with the arguments given) under the kernel's process accounting (every process's CPU at its
// exit, `accton`) and the proc connector's fork/exec log (`forkstat`, every command line), then
// prints the CPU of all processes by kind: the vitest workers, the Node and Python children
// (cold pytest runs, whole suite or a selection; warm runners and their forks; the localiser's
// traced runs), git and the rest. Needs root and Debian's `acct` and `forkstat` packages
// (`apt-get install acct forkstat`); a measurement tool, not part of `npm test`. It turns process
// accounting off when it ends (`accton off`), so a machine that kept its own accounting must turn
// it on again. Exits with vitest's status.
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const need = (tool: string) => {
  if (spawnSync("sh", ["-c", `command -v ${tool}`]).status !== 0) {
    console.error(`suite:cpu needs ${tool} (apt-get install acct forkstat) and root`);
    process.exit(2);
  }
};
for (const tool of ["accton", "dump-acct", "forkstat"]) need(tool);

const dir = mkdtempSync(join(tmpdir(), "suite-cpu-"));
const pacct = join(dir, "pacct");
const forkLog = join(dir, "forks.txt");
writeFileSync(pacct, "");
if (spawnSync("accton", [pacct], { stdio: "inherit" }).status !== 0) process.exit(2);
const forkstat = spawn("sh", ["-c", `exec forkstat -e fork,exec -l > '${forkLog}' 2>&1`], { stdio: "ignore" });
const stop = () => {
  spawnSync("accton", ["off"]);
  forkstat.kill("SIGINT");
};
process.on("exit", stop);
for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => process.exit(130));

const started = performance.now();
const vitest = spawnSync("npx", ["vitest", "run", ...process.argv.slice(2)], { stdio: "inherit" });
const wall = (performance.now() - started) / 1000;
stop();
await new Promise((resolve) => setTimeout(resolve, 500));

/** Each pid's last exec'd command line (pids are reused over a long run: the latest exec before its exit is near enough for kinds). */
const commands = new Map<number, string>();
for (const line of readFileSync(forkLog, "utf8").split("\n")) {
  const parts = line.trim().split(/\s+/);
  if (parts[1] === "exec" && parts[2]) commands.set(Number(parts[2]), parts.slice(3).join(" "));
}

const NODE_THREADS = new Set(["node", "MainThread", "SignalInspector", "V8Worker", "DelayedTaskSche", "libuv-worker"]);
function kind(comm: string, command: string): string {
  if (comm.startsWith("python")) {
    if (command.includes("autogen_warm")) return "python: warm pytest server";
    if (command.includes("-m pytest -q -p no:cacheprovider -p autogen_pytest"))
      return "python: localiser's traced pytest runs";
    if (/-m pytest .*--junitxml=\S+ \S/.test(command)) return "python: cold pytest run, a selection";
    if (command.includes("-m pytest")) return "python: cold pytest run, whole suite";
    if (command === "") return "python: forks of a warm server (no exec)";
    return "python: other";
  }
  if (NODE_THREADS.has(comm)) {
    if (command.includes("vitest")) return "node: vitest workers and main";
    return "node: children (CLI runs, test runners)";
  }
  return comm;
}

const byKind = new Map<string, { count: number; cpu: number }>();
const dump = spawnSync("dump-acct", [pacct], { encoding: "utf8", maxBuffer: 1 << 30 }).stdout;
let total = 0;
for (const line of dump.split("\n")) {
  const fields = line.split("|").map((f) => f.trim());
  if (fields.length < 11) continue;
  const [comm = "", , user = "0", system = "0"] = fields;
  const cpu = (Number(user) + Number(system)) / 100;
  const name = kind(comm.replace(/\*$/, ""), commands.get(Number(fields[9])) ?? "");
  const entry = byKind.get(name) ?? { count: 0, cpu: 0 };
  entry.count += 1;
  entry.cpu += cpu;
  byKind.set(name, entry);
  total += cpu;
}

console.log(
  `\nvitest exit ${String(vitest.status)}, wall ${wall.toFixed(0)} s; CPU of every process: ${total.toFixed(0)} s`,
);
for (const [name, { count, cpu }] of [...byKind].sort((a, b) => b[1].cpu - a[1].cpu).slice(0, 14))
  console.log(
    `${cpu.toFixed(1).padStart(8)} s ${((100 * cpu) / total).toFixed(1).padStart(5)}%  ${String(count).padStart(6)} processes  ${name}`,
  );
console.log(`(logs kept in ${dir})`);
process.exitCode = vitest.status ?? 1;
