// The bot's end of a warm runner's unix socket: one connection, newline-delimited JSON,
// every message from the sandboxed side validated (it is written by code the repository
// can reach) and capped in size.
import { chmod } from "node:fs/promises";
import { createServer, type Server, type Socket } from "node:net";
import { z } from "zod";

const MAX_LINE_BYTES = 64 * 1024;

export const serverMessage = z.union([
  z.object({ ready: z.literal(true), items: z.number().int().min(0) }),
  z.object({ ready: z.literal(false), reason: z.string().max(4096) }),
  z.object({ status: z.literal("cold"), reason: z.string().max(4096) }),
  z.object({ status: z.literal("timeout"), ms: z.number().min(0) }),
  z.object({ status: z.literal("running"), inProcess: z.literal(true) }),
  z.object({
    status: z.literal("ran"),
    exit: z.number().int().nullable(),
    signal: z.number().int().nullable(),
    ms: z.number().min(0),
  }),
]);
export type ServerMessage = z.infer<typeof serverMessage>;

export type Received = { kind: "message"; message: ServerMessage } | { kind: "closed" } | { kind: "timeout" };

export class WarmChannel {
  private readonly server: Server;
  private socket: Socket | undefined;
  private buffer = "";
  private closed = false;
  private readonly queue: ServerMessage[] = [];
  private waiter: (() => void) | undefined;

  private constructor(server: Server) {
    this.server = server;
    server.on("connection", (socket) => {
      // Only the first connection is the server; any other is refused.
      if (this.socket) {
        socket.destroy();
        return;
      }
      this.socket = socket;
      socket.setEncoding("utf8");
      socket.on("data", (chunk: string) => this.onData(chunk));
      socket.on("close", () => this.onClose());
      socket.on("error", () => this.onClose());
      server.close();
    });
  }

  static async listen(path: string): Promise<WarmChannel> {
    const server = createServer();
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(path, () => resolve());
    });
    // The directory holding it is ours (0700) and shown only to this run.
    await chmod(path, 0o666);
    return new WarmChannel(server);
  }

  send(message: unknown): void {
    this.socket?.write(`${JSON.stringify(message)}\n`);
  }

  /** The next message, or "closed" (the server ended or broke the protocol), or "timeout". */
  async next(timeoutMs: number): Promise<Received> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const message = this.queue.shift();
      if (message) return { kind: "message", message };
      if (this.closed) return { kind: "closed" };
      const left = deadline - Date.now();
      if (left <= 0) return { kind: "timeout" };
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiter = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.waiter = undefined;
    }
  }

  close(): void {
    this.closed = true;
    this.server.close();
    this.socket?.destroy();
    this.waiter?.();
  }

  private onData(chunk: string): void {
    this.buffer += chunk;
    let newline: number;
    while ((newline = this.buffer.indexOf("\n")) >= 0) {
      const line = this.buffer.slice(0, newline);
      this.buffer = this.buffer.slice(newline + 1);
      const parsed = serverMessage.safeParse(safeJson(line));
      if (!parsed.success) return this.onClose();
      this.queue.push(parsed.data);
    }
    if (this.buffer.length > MAX_LINE_BYTES) this.onClose();
    this.waiter?.();
  }

  private onClose(): void {
    this.closed = true;
    this.socket?.destroy();
    this.waiter?.();
  }
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
