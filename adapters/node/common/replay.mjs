// Feeding a fixture to an SDK through its own HTTP client and stream parser (SSE, or a binary framing such as
// Bedrock's event stream), with no network, and the small helpers every driver needs to write the canonical
// result (CONTRACT.md 3).

export const FAKE_BASE_URL = 'http://deltacheck.invalid';
export const FAKE_API_KEY = 'sk-deltacheck-dummy';
/** The media type of a binary body: the run request's `body_base64` is AWS event-stream messages (PROTOCOL.md). */
export const EVENT_STREAM_CONTENT_TYPE = 'application/vnd.amazon.eventstream';

/**
 * A `fetch` for an SDK constructor that answers with a run request's body, whatever its protocol: the bytes of
 * `body_base64` (a binary framing: Bedrock's event-stream messages) as `application/vnd.amazon.eventstream`,
 * else the UTF-8 bytes of `sse` as `text/event-stream`. The body is read in the pieces the request's `sse_cuts`
 * give (one read each); without them an event stream comes one message per read (as a server flushes them) and
 * SSE in four slices of equal size (see replayFetch).
 */
export function requestFetch(request) {
  if (typeof request.body_base64 === 'string') {
    const bytes = new Uint8Array(Buffer.from(request.body_base64, 'base64'));
    const edges = request.sse_cuts?.length ? cutEdges(bytes, request.sse_cuts) : messageEdges(bytes);
    return fetchAnswering(bytes, edges, EVENT_STREAM_CONTENT_TYPE);
  }
  return replayFetch(request.sse, { cuts: request.sse_cuts });
}

/**
 * A `fetch` for an SDK constructor: every call answers 200 with the request's SSE text as a
 * `text/event-stream` body, delivered as a ReadableStream cut at `cuts` (byte offsets: a byte-level
 * fixture's `sse_cuts`), or else in `pieces` byte slices of equal size (so the slices may cut lines,
 * events and multi-byte characters, as a network does).
 * `calls` records what the SDK asked for (method and url), for diagnostics.
 */
export function replayFetch(sseText, { pieces = 4, cuts = null } = {}) {
  const bytes = new TextEncoder().encode(sseText);
  if (cuts && cuts.length) return fetchAnswering(bytes, cutEdges(bytes, cuts), 'text/event-stream');
  const size = Math.max(1, Math.ceil(bytes.length / pieces));
  const edges = Array.from({ length: Math.ceil(bytes.length / size) + 1 }, (_, i) => Math.min(i * size, bytes.length));
  return fetchAnswering(bytes, edges, 'text/event-stream');
}

const cutEdges = (bytes, cuts) => [0, ...cuts, bytes.length];

/**
 * Where each event-stream message ends (its prelude's total length, the first 4 bytes, big-endian: CONTRACT.md 2),
 * so that each read is one whole message. A length that cannot be a message's (under the 16 bytes of prelude
 * and checksum) or that runs past the body leaves the rest as one last read: a cut-off or damaged message is
 * the reader's to find, not the replay's.
 */
function messageEdges(bytes) {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const edges = [0];
  let at = 0;
  while (bytes.length - at >= 4) {
    const length = view.getUint32(at, false);
    if (length < 16 || at + length > bytes.length) break;
    at += length;
    edges.push(at);
  }
  if (at < bytes.length) edges.push(bytes.length);
  return edges;
}

/** The fetch itself: 200, the body read between consecutive `edges`, one piece per pull. */
function fetchAnswering(bytes, edges, contentType) {
  const calls = [];
  async function fetch(input, init = {}) {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input?.url;
    calls.push({ method: init.method ?? input?.method ?? 'GET', url });
    let next = 1;
    const body = new ReadableStream({
      pull(controller) {
        if (next >= edges.length) {
          controller.close();
          return;
        }
        controller.enqueue(bytes.slice(edges[next - 1], edges[next]));
        next += 1;
      },
    });
    return new Response(body, { status: 200, headers: { 'content-type': contentType } });
  }
  fetch.calls = calls;
  return fetch;
}

/**
 * Finds which fixture chunk an object the SDK parsed from the stream is, by its JSON text, searching
 * forward from the last chunk found (the SDK consumes chunks in order and may skip some). null when
 * the object matches no later chunk (then the consumed position is unknown).
 */
export function chunkLocator(chunks) {
  const texts = chunks.map((c) => JSON.stringify(c));
  let next = 0;
  let last = null;
  const locate = (obj) => {
    let text;
    try { text = JSON.stringify(obj); } catch { return null; }
    for (let i = next; i < texts.length; i++) {
      if (texts[i] === text) {
        next = i + 1;
        last = i;
        return i;
      }
    }
    return null;
  };
  locate.last = () => last;
  return locate;
}

/** Arguments as the canonical JSON text: text passes as is, a parsed value is serialised. */
export function argumentsText(value) {
  if (typeof value === 'string') return value;
  if (value === null || value === undefined) return null;  // no arguments: the comparator's rule (CONTRACT 4)
  const text = JSON.stringify(value);
  if (typeof text !== 'string') throw new TypeError(`the library gave tool-call arguments that are not JSON: ${String(value)}`);
  return text;
}

export const textPart = (text, annotations = []) => ({ type: 'text', text, annotations });
export const refusalPart = (text) => ({ type: 'refusal', text });
export const reasoningPart = (text, summary = [], signature = null) => ({ type: 'reasoning', text, summary, signature });
export const redactedPart = (data) => ({ type: 'redacted_reasoning', data });
/** `flagged`: the library marks the call not executable (CONTRACT.md 3.3); only then is the key written. */
export const toolCallPart = (kind, id, itemId, name, args, flagged = false) =>
  ({ type: 'tool_call', kind, id, item_id: itemId, name, arguments: args, ...(flagged ? { flagged: true } : {}) });
export const serverToolResultPart = (blockType, toolUseId, content) =>
  ({ type: 'server_tool_result', block_type: blockType, tool_use_id: toolUseId, content });

/** A JSON value for the result, undefined mapped to null (the result has no undefined). */
export const orNull = (value) => (value === undefined ? null : value);

/**
 * An error's canonical type: the first of `candidates` (its type, then its code) that the library holds, as
 * it holds it. A numeric code stays a number: the comparator reads it as its decimal text (CONTRACT.md 3.1).
 */
export const errorType = (...candidates) =>
  candidates.find((value) => value !== undefined && value !== null && value !== '') ?? null;
