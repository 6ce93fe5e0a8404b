// Where the bot keeps its database by default: the user's data directory, following
// each platform's convention (XDG on Linux).
import { homedir } from "node:os";
import { join } from "node:path";

export function defaultDataDir(
  env: NodeJS.ProcessEnv = process.env,
  platform: NodeJS.Platform = process.platform,
  home = homedir(),
): string {
  if (platform === "win32") return join(env.LOCALAPPDATA ?? join(home, "AppData", "Local"), "autogen-bot");
  if (platform === "darwin") return join(home, "Library", "Application Support", "autogen-bot");
  const xdg = env.XDG_DATA_HOME;
  return join(xdg && xdg.startsWith("/") ? xdg : join(home, ".local", "share"), "autogen-bot");
}
