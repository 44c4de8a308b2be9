/** Reading a request body within a byte limit, shared by the rows and sessions endpoints. */
/**
 * The body as text, or undefined when it is longer than `max` bytes. An oversized body is still
 * read to its end (up to a hard cap) before the 413 goes out: a client still sending when the
 * server answers and closes sees a broken connection instead of the status.
 */
export async function readLimited(req: Request, max: number): Promise<string | undefined> {
  const declared = Number(req.headers.get('content-length') ?? Number.NaN);
  const cap = max * 8;
  if (declared > cap || !req.body) return declared > cap ? undefined : '';
  const chunks: Uint8Array[] = [];
  let total = 0;
  const reader = req.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > cap) {
      await reader.cancel();
      return undefined;
    }
    if (total <= max) chunks.push(value);
  }
  if (total > max) return undefined;
  return Buffer.concat(chunks).toString('utf8');
}
