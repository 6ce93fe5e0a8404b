// A response body read up to a size cap: GitHub answers logs and artifacts with a redirect
// to short-lived storage, whose stream is read only as far as the cap (the rest cancelled).

/** Reads a response stream up to `maxBytes` (the rest is cancelled, not buffered). */
export async function readCapped(body: unknown, maxBytes: number): Promise<{ bytes: Uint8Array; truncated: boolean }> {
  if (typeof body === "string") {
    const bytes = new TextEncoder().encode(body);
    return { bytes: bytes.subarray(0, maxBytes), truncated: bytes.length > maxBytes };
  }
  if (body instanceof ArrayBuffer || ArrayBuffer.isView(body)) {
    const bytes =
      body instanceof ArrayBuffer
        ? new Uint8Array(body)
        : new Uint8Array(body.buffer, body.byteOffset, body.byteLength);
    return { bytes: bytes.subarray(0, maxBytes), truncated: bytes.length > maxBytes };
  }
  if (!body || typeof (body as ReadableStream).getReader !== "function")
    return { bytes: new Uint8Array(), truncated: false };
  const reader = (body as ReadableStream<Uint8Array>).getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  let truncated = false;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    const room = maxBytes - size;
    chunks.push(value.subarray(0, room));
    size += Math.min(room, value.length);
    if (value.length > room) {
      truncated = true;
      await reader.cancel().catch(() => undefined);
      break;
    }
  }
  const out = new Uint8Array(size);
  let offset = 0;
  for (const c of chunks) {
    out.set(c, offset);
    offset += c.length;
  }
  return { bytes: out, truncated };
}
