// Who is looking at the dashboard, and what they may read: the port the access modes
// implement (a token for a reverse proxy, GitHub sign-in).
import type { IncomingMessage, ServerResponse } from "node:http";

export type Viewer = {
  /** Shown in the header (a GitHub login), when known. */
  name: string | undefined;
  /** Whether the viewer may see this repository's jobs (titles, tests, attempts). */
  canRead: (owner: string, repo: string) => Promise<boolean>;
  /** Where a sign-out form posts, when there is a session to end. */
  signOut?: string | undefined;
};

export type DashboardAccessPort = {
  /** Answers /dashboard/auth/* requests; false for other paths. */
  handleAuth: (req: IncomingMessage, res: ServerResponse, path: string) => Promise<boolean>;
  /** The viewer of a request, or undefined when it is not signed in. */
  viewer: (req: IncomingMessage) => Promise<Viewer | undefined>;
  /** The answer to a request without a viewer (a sign-in form or a redirect to GitHub). */
  refuse: (req: IncomingMessage, res: ServerResponse) => void;
};
