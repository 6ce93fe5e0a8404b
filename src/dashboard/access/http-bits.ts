// Small HTTP pieces the dashboard shares: cookies (parsed and written with the flags a
// session needs), a bounded form body, and the headers every page carries.
import type { IncomingMessage, ServerResponse } from "node:http";

export function cookies(req: IncomingMessage): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of (req.headers.cookie ?? "").split(";")) {
    const eq = part.indexOf("=");
    if (eq < 0) continue;
    const name = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).trim();
    try {
      if (name && !(name in out)) out[name] = decodeURIComponent(value);
    } catch {
      // A malformed cookie is ignored, as if it were not sent.
    }
  }
  return out;
}

export type CookieOptions = { path: string; maxAgeSeconds: number; secure: boolean };

export function setCookie(name: string, value: string, options: CookieOptions): string {
  return `${name}=${encodeURIComponent(value)}; Path=${options.path}; Max-Age=${options.maxAgeSeconds}; HttpOnly; SameSite=Lax${options.secure ? "; Secure" : ""}`;
}

export function clearCookie(name: string, path: string, secure: boolean): string {
  return setCookie(name, "", { path, maxAgeSeconds: 0, secure });
}

/** True when the client reached us over https (directly, or through a proxy that says so). */
export function overHttps(req: IncomingMessage): boolean {
  return (
    (req.socket as { encrypted?: boolean }).encrypted === true ||
    String(req.headers["x-forwarded-proto"] ?? "")
      .split(",")[0]
      ?.trim() === "https"
  );
}

/** An application/x-www-form-urlencoded body of at most `max` bytes (undefined when larger or of another type). */
export async function readForm(req: IncomingMessage, max = 4096): Promise<URLSearchParams | undefined> {
  if (!/^application\/x-www-form-urlencoded\b/i.test(String(req.headers["content-type"] ?? ""))) return undefined;
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > max) return undefined;
    chunks.push(chunk);
  }
  return new URLSearchParams(Buffer.concat(chunks).toString("utf8"));
}

export const PAGE_HEADERS = {
  "content-type": "text/html; charset=utf-8",
  "cache-control": "no-store",
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "x-frame-options": "DENY",
  "content-security-policy":
    "default-src 'none'; style-src 'unsafe-inline'; img-src 'self' data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
};

export function sendPage(
  res: ServerResponse,
  status: number,
  body: string,
  headers: Record<string, string | string[]> = {},
): void {
  res.writeHead(status, { ...PAGE_HEADERS, ...headers }).end(body);
}

export function redirect(res: ServerResponse, location: string, headers: Record<string, string | string[]> = {}): void {
  res.writeHead(303, { location, "cache-control": "no-store", ...headers }).end();
}
