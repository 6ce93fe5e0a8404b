// Who the bot's commits are by: the App's bot user as GitHub itself shows bots,
// `<slug>[bot] <<id>+<slug>[bot]@users.noreply.github.com>`. The App learns its slug
// from GET /app (with the App's JWT) and its bot user's id from GET /users/<slug>[bot],
// once per process; the action is the `github-actions[bot]` of GITHUB_TOKEN.
import { z } from "zod";

export type BotIdentity = { name: string; email: string };

export function botIdentity(bot: { slug: string; id: number }): BotIdentity {
  if (!/^[a-z0-9][a-z0-9-]*$/i.test(bot.slug)) throw new Error(`${JSON.stringify(bot.slug)} is not a GitHub App slug`);
  if (!Number.isSafeInteger(bot.id) || bot.id <= 0)
    throw new Error(`${JSON.stringify(bot.id)} is not a GitHub user id`);
  const login = `${bot.slug}[bot]`;
  return { name: login, email: `${bot.id}+${login}@users.noreply.github.com` };
}

/** The identity of commits made with an Actions GITHUB_TOKEN. */
export const ACTIONS_BOT: BotIdentity = botIdentity({ slug: "github-actions", id: 41898282 });

/** The slices of Octokit this needs: GET /app with the App's JWT (Probot's `app.auth()`), GET /users with an installation's token. */
export type AppOctokitLike = { rest: { apps: { getAuthenticated(): Promise<{ data: unknown }> } } };
export type UsersOctokitLike = {
  rest: { users: { getByUsername(p: { username: string }): Promise<{ data: unknown }> } };
};

const App = z.object({ slug: z.string().min(1) });
const User = z.object({ id: z.number().int().positive(), login: z.string() });

/** Asks GitHub who the App's bot user is. */
export async function appBotIdentity(app: AppOctokitLike, users: UsersOctokitLike): Promise<BotIdentity> {
  const parsed = App.safeParse((await app.rest.apps.getAuthenticated()).data);
  if (!parsed.success)
    throw new Error(
      "GET /app answered without the App's slug: is the App's private key right (the call needs the App's JWT)?",
    );
  const login = `${parsed.data.slug}[bot]`;
  const user = User.safeParse((await users.rest.users.getByUsername({ username: login })).data);
  if (!user.success) throw new Error(`GET /users/${login} answered without a user id`);
  return botIdentity({ slug: parsed.data.slug, id: user.data.id });
}

/** Asks once (with the first caller's argument), then answers from memory; a failed look-up is asked again next time. */
export function cachedIdentity<A>(lookUp: (arg: A) => Promise<BotIdentity>): (arg: A) => Promise<BotIdentity> {
  let pending: Promise<BotIdentity> | undefined;
  return (arg) => {
    pending ??= lookUp(arg).catch((error: unknown) => {
      pending = undefined;
      throw error;
    });
    return pending;
  };
}
