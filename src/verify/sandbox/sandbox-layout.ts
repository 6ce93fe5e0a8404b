// What a sandboxed run sees of the host's file system, as one description that both
// backends (bubblewrap, unshare) render: the host read-only, the bot's own secrets and
// state hidden, a private size-capped /tmp, and only the workspace (plus the few
// scratch directories we hand the run) writable.
import { grantedDirectories } from "./workspace-grants.ts";
import { existsSync, lstatSync, realpathSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { delimiter, dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { defaultDataDir } from "../../config/data-dir.ts";

export type MountOp =
  /** A fresh, empty, size-capped tmpfs over a directory: hides what was there. */
  | { kind: "tmpfs"; path: string; bytes: number }
  /** An empty file over a file: hides its content. */
  | { kind: "hide-file"; path: string }
  | { kind: "ro"; path: string }
  | { kind: "rw"; path: string };

export type SandboxLayout = {
  /** Applied in this order, after the host root is bound read-only with a fresh /dev and /proc. */
  ops: MountOp[];
};

export type LayoutRequest = {
  /** The directory the command runs in; writable. */
  workspace: string;
  /** Further writable directories (our report dir, the run's HOME). */
  writable?: string[];
  /** Directories shown read-only even when they sit in a hidden tree (a git dir, a toolchain). */
  readOnly?: string[];
  /** Further host paths to hide (the App's repository cache, other jobs' worktrees). */
  hidden?: string[];
  /** The bot's own PATH (never the run's, which a repository extends): its directories stay visible. */
  path?: string;
  /** Bytes for each private tmpfs (/tmp, /var/tmp, /dev/shm, the hidden home). */
  tmpBytes?: number;
  /** The bot's environment, for the locations of its own secrets and state. */
  env?: NodeJS.ProcessEnv;
};

export const DEFAULT_TMP_BYTES = 512 * 1024 * 1024;

/** Directories that must stay visible whatever the configuration says: hiding them breaks every program. */
const SYSTEM = [
  "/",
  "/usr",
  "/bin",
  "/sbin",
  "/lib",
  "/lib32",
  "/lib64",
  "/libx32",
  "/etc",
  "/opt",
  "/var",
  "/proc",
  "/dev",
  "/sys",
];

/** Version managers whose whole tree a PATH entry needs (shims look into `versions/`). */
const TOOLCHAIN_HOMES = new Set([
  ".pyenv",
  ".nvm",
  ".cargo",
  ".rustup",
  ".volta",
  ".asdf",
  ".sdkman",
  ".deno",
  ".bun",
  ".rbenv",
  ".goenv",
  ".ghcup",
  ".cabal",
  ".opam",
  ".elan",
  ".juliaup",
  ".fnm",
  ".local",
  "go",
  ".go",
]);

const BOT_ROOT = fileURLToPath(new URL("../../../", import.meta.url));

export function sandboxLayout(request: LayoutRequest): SandboxLayout {
  const env = request.env ?? process.env;
  const tmpBytes = request.tmpBytes ?? DEFAULT_TMP_BYTES;
  const home = safeReal(env.HOME && isAbsolute(env.HOME) ? env.HOME : homedir());

  const hiddenDirs = new Set<string>();
  const hiddenFiles = new Set<string>();
  const hide = (path: string | undefined) => {
    if (!path || !isAbsolute(path)) return;
    const real = safeReal(path);
    if (SYSTEM.includes(real) || !existsSync(real)) return;
    (statSync(real).isDirectory() ? hiddenDirs : hiddenFiles).add(real);
  };
  // The bot's home (keys, credentials, shell history), its data (the job store, memory,
  // transcripts) and its secret files. Operators add more with AUTOGEN_SANDBOX_HIDE.
  hide(home);
  hide(defaultDataDir(env, process.platform, home));
  if (env.AUTOGEN_DB_PATH) hide(dirname(resolve(env.AUTOGEN_DB_PATH)));
  hide(env.PRIVATE_KEY_PATH ? resolve(env.PRIVATE_KEY_PATH) : undefined);
  hide(join(process.cwd(), ".env"));
  hide(join(BOT_ROOT, ".env"));
  for (const path of (env.AUTOGEN_SANDBOX_HIDE ?? "").split(delimiter)) hide(path || undefined);
  for (const path of request.hidden ?? []) hide(path);
  for (const path of ["/run", "/var/tmp", "/var/run", "/root", "/home", "/etc/shadow", "/etc/gshadow", "/etc/ssh"])
    hide(path);
  for (const path of ["/run", "/var/tmp"]) if (existsSync(path)) hiddenDirs.add(safeReal(path));

  // What must stay visible inside a hidden tree: toolchains on PATH, our pytest plugin.
  const writableRoots = [request.workspace, ...(request.writable ?? [])].filter((p) => existsSync(p));
  const workspaceReal = [...new Set([...writableRoots.map(safeReal), ...writableRoots.map((p) => resolve(p))])];
  /** Inside the workspace (or another writable dir): a run controls what is there. `strictlyBelow` allows the worktree's own `.git` file. */
  const insideWritable = (path: string, strictlyBelow = false) => {
    const resolved = resolve(path);
    return workspaceReal.some(
      (w) => resolved === w || (resolved.startsWith(w + sep) && !(strictlyBelow && isOwnGitPointer(resolved, w))),
    );
  };
  const visible = new Set<string>();
  // The private /tmp hides the host's too: the bot itself may be installed there (a CI checkout).
  const covered = [...hiddenDirs, ...["/tmp", "/dev/shm"].filter((d) => existsSync(d)).map(safeReal)];
  const show = (path: string) => {
    if (!isAbsolute(path) || !existsSync(path)) return;
    const real = safeReal(path);
    const hiddenParent = covered.find((dir) => real === dir || real.startsWith(dir + sep));
    if (!hiddenParent) return;
    const [first] = relative(hiddenParent, real).split(sep);
    // A version manager's tree goes whole; anything else only the directory named.
    visible.add(first && TOOLCHAIN_HOMES.has(first) ? join(hiddenParent, first) : real);
    // rustup's proxies in ~/.cargo/bin run the toolchains kept in ~/.rustup (or RUSTUP_HOME).
    if (first === ".cargo") {
      const rustup = env.RUSTUP_HOME && isAbsolute(env.RUSTUP_HOME) ? env.RUSTUP_HOME : join(hiddenParent, ".rustup");
      if (existsSync(rustup)) visible.add(safeReal(rustup));
    }
  };
  // Only the bot's own PATH: a directory the repository put on the run's PATH (node_modules/.bin)
  // is inside the workspace, and following it could point anywhere.
  for (const dir of (request.path ?? env.PATH ?? "").split(delimiter)) if (dir && !insideWritable(dir)) show(dir);
  show(join(BOT_ROOT, "resources"));
  show(dirname(process.execPath));
  // A read-only path the caller named is shown as itself, never through a link a run left there.
  for (const path of request.readOnly ?? [])
    if (existsSync(path) && !lstatSync(path).isSymbolicLink() && !insideWritable(path, true))
      visible.add(safeReal(path));
  // What the bot gave this workspace (linked node_modules, installed dependencies): never another job's.
  for (const dir of grantedDirectories(request.workspace))
    if (existsSync(dir) && !insideWritable(dir)) visible.add(dir);

  const writable = [request.workspace, ...(request.writable ?? [])].filter((p) => existsSync(p)).map(safeReal);
  // Anything writable wins over a hide that would cover it; a hidden secret inside a writable tree stays hidden.
  const ops: MountOp[] = [
    { kind: "tmpfs", path: "/tmp", bytes: tmpBytes },
    { kind: "tmpfs", path: "/dev/shm", bytes: Math.min(tmpBytes, 64 * 1024 * 1024) },
    ...[...hiddenDirs]
      .filter((d) => d !== "/tmp")
      .map((path): MountOp => ({ kind: "tmpfs", path, bytes: 1024 * 1024 })),
    ...[...visible].map((path): MountOp => ({ kind: "ro", path })),
    ...writable.map((path): MountOp => ({ kind: "rw", path })),
    ...[...hiddenFiles].map((path): MountOp => ({ kind: "hide-file", path })),
  ];
  return { ops: orderOps(ops, writable) };
}

/**
 * Parents before children, so a bind inside a tmpfs lands on top of it; at the same
 * depth the original order (hide, then show, then write). A read-only path inside a
 * writable one (the worktree's `.git`) comes after it because it is deeper.
 */
function orderOps(ops: MountOp[], writable: string[]): MountOp[] {
  const depth = (p: string) => (p === "/" ? 0 : p.split(sep).length);
  const kept = ops.filter((op, i) => ops.findIndex((o) => o.path === op.path && o.kind === op.kind) === i);
  // A tmpfs over a writable path, or over one of its parents' siblings, would hide the workspace: drop such hides
  // only when they equal a writable path (a parent is fine: the bind is re-created inside it).
  const filtered = kept.filter(
    (op) => !((op.kind === "tmpfs" || op.kind === "hide-file") && writable.includes(op.path) && op.path !== "/tmp"),
  );
  return filtered
    .map((op, index) => ({ op, index }))
    .sort((a, b) => depth(a.op.path) - depth(b.op.path) || a.index - b.index)
    .map(({ op }) => op);
}

function safeReal(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return resolve(path);
  }
}

/** The workspace's own `.git` (its pointer file or git dir; the caller has refused a link): made read-only on top of the writable worktree. */
function isOwnGitPointer(path: string, workspace: string): boolean {
  return path === join(workspace, ".git");
}
