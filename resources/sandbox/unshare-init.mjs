// The unshare fallback's init: pid 1 of the run's new PID, mount, network, IPC and UTS
// namespaces, root there and nowhere else. It builds the same file-system view as
// bubblewrap (the host read-only, a fresh /dev, hidden secrets, a private /tmp, only the
// workspace writable) in a staging directory from the layout it is given as JSON, moves
// into it with pivot_root, brings up loopback, drops every capability and runs the
// command. When the command exits, this process exits and the kernel ends every process
// left in the namespace. Every program is run with an argument vector, never a shell.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";

const [specText, separator, ...command] = process.argv.slice(2);
if (!specText || separator !== "--" || command.length === 0) fail("usage: unshare-init.mjs <layout json> -- <command...>");
const spec = JSON.parse(specText);

function fail(message) {
  process.stderr.write(`autogen-sandbox: ${message}\n`);
  process.exit(126);
}

function run(file, args, what, { optional = false, cwd } = {}) {
  const result = spawnSync(file, args, { stdio: ["ignore", "ignore", "pipe"], cwd, encoding: "utf8", env: { PATH: SYSTEM_PATH } });
  if (result.status === 0) return true;
  if (optional) return false;
  fail(`${what} failed: ${(result.stderr || result.error?.message || `exit ${result.status}`).trim()}`);
}

const SYSTEM_PATH = "/usr/sbin:/usr/bin:/sbin:/bin";
const stage = spec.stage;
const at = (path) => join(stage, path);

// 1. The host tree, read-only, as the new root.
run("mount", ["--rbind", "/", stage], "binding the host root");
run("mount", ["--make-rprivate", stage], "making the new root private");
const mountPoints = readFileSync("/proc/self/mountinfo", "utf8")
  .split("\n")
  .map((line) => line.split(" ")[4])
  .filter(Boolean)
  .map((p) => p.replace(/\\([0-7]{3})/g, (_, octal) => String.fromCharCode(parseInt(octal, 8))))
  .filter((p) => p === stage || p.startsWith(`${stage}/`));
for (const point of mountPoints) {
  const ok = run("mount", ["-o", "remount,bind,ro", point], `making ${point} read-only`, { optional: true });
  if (!ok && point === stage) fail("the host root could not be made read-only");
}

// 2. A fresh /dev with only the harmless devices (a raw disk is writable by root even on a read-only mount).
run("mount", ["-t", "tmpfs", "-o", "size=1m,mode=0755,nosuid,noexec", "tmpfs", at("/dev")], "mounting /dev");
for (const node of ["null", "zero", "full", "random", "urandom", "tty"]) {
  if (!existsSync(`/dev/${node}`)) continue;
  writeFileSync(at(`/dev/${node}`), "");
  run("mount", ["--bind", `/dev/${node}`, at(`/dev/${node}`)], `binding /dev/${node}`);
}
mkdirSync(at("/dev/shm"));
mkdirSync(at("/dev/pts"));
symlinkSync("/proc/self/fd", at("/dev/fd"));
for (const [i, name] of ["stdin", "stdout", "stderr"].entries()) symlinkSync(`/proc/self/fd/${i}`, at(`/dev/${name}`));
run("mount", ["-o", "remount,bind,ro", at("/dev")], "making /dev read-only");

// 3. The layout: hides, read-only and writable binds, in the order given.
for (const op of spec.ops) {
  const target = at(op.path);
  if (op.kind === "tmpfs") {
    if (!existsSync(target)) continue;
    run("mount", ["-t", "tmpfs", "-o", `size=${op.bytes},mode=0755,nosuid,nodev`, "tmpfs", target], `hiding ${op.path}`);
  } else if (op.kind === "hide-file") {
    run("mount", ["--bind", "/dev/null", target], `hiding ${op.path}`);
  } else {
    if (!existsSync(op.path)) continue;
    if (!existsSync(target)) {
      mkdirSync(statSync(op.path).isDirectory() ? target : dirname(target), { recursive: true });
      if (!statSync(op.path).isDirectory()) writeFileSync(target, "");
    }
    run("mount", ["--bind", op.path, target], `binding ${op.path}`);
    if (op.kind === "ro") run("mount", ["-o", "remount,bind,ro", target], `making ${op.path} read-only`);
  }
}

// 4. Into the new root; the old one is detached so nothing can reach it.
process.chdir(stage);
run("pivot_root", [".", "."], "pivot_root");
run("umount", ["-l", "."], "detaching the host root");
process.chdir("/");

// 5. Loopback up, network otherwise absent (the namespace has no other interface).
if (!spec.network && !run("ip", ["link", "set", "lo", "up"], "loopback", { optional: true })) {
  process.stderr.write("autogen-sandbox: loopback could not be brought up (no `ip` command): local servers will not work\n");
}

// 6. The command, with no capabilities left and no way to gain any.
const dropped = ["setpriv", "--no-new-privs", "--inh-caps=-all", "--ambient-caps=-all", "--bounding-set=-all", "--", ...command];
const result = spawnSync(dropped[0], dropped.slice(1), { stdio: "inherit", cwd: spec.cwd });
if (result.error) fail(`could not start ${command[0]}: ${result.error.message}`);
process.exit(result.status ?? 128 + (result.signal ? ({ SIGHUP: 1, SIGINT: 2, SIGKILL: 9, SIGTERM: 15, SIGXCPU: 24, SIGXFSZ: 25 }[result.signal] ?? 1) : 1));
