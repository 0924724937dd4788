// deltacheck driver for Google's Gen AI TypeScript SDK (`@google/genai`).
//
// Mode `chat` (google-genai-node): `ai.chats.create({model}).sendMessageStream({message})`, its stream
// consumed to the end, then `chat.getHistory()`: the model turn the chat session assembled from the
// stream and would send back on the next turn. That is where the SDK assembles a streamed response
// (Chat.processStreamResponse keeps each chunk's candidates[0].content and Chat.recordHistory appends
// them to the history once the stream has ended; models.generateContentStream itself only yields the
// chunks). The bytes get in through the client's own fetch path: `httpOptions.fetch` answers with the
// fixture's SSE text and `httpOptions.baseUrl` points at a dummy host, so the SDK's own SSE splitter
// (ApiClient.processStreamResponse) and its error-chunk check (throwIfStreamErrorChunk) run. The client
// talks to the Gemini API (not Vertex AI): both backends copy a candidate's `content` as received.
//
// Mapping (never repaired): every model Content the history holds after the user turn, in order, and
// each of its parts as the SDK keeps it: a `text` part is a text part (`thought: true`: a reasoning
// part), a `functionCall` part a function tool call (`id` and `name` as sent, `args` serialised with
// JSON.stringify), each with the part's `thoughtSignature` as its signature; a part of any other kind
// has no canonical place. The history records one Content per chunk and never joins parts; a turn it
// judged invalid or unfinished is one Content with no parts, which is a choice with no parts.
// An error chunk makes the SDK throw an ApiError (status = the error's numeric code) whose message is
// `got status: <status>. <the chunk as JSON>`; the error is that chunk's error object as the SDK
// serialised it there (its `status`, else its `code`, and its `message`), and the history records nothing.
//
// What it cannot express (n/a): finish reason, finish detail and usage (the chat history holds Content
// only: no candidate's finishReason, finishMessage or usageMetadata survives the stream), candidates other
// than the first (the history keeps candidates[0] of every chunk), tool-call completion events (the chat
// stream yields the chunks as they came; nothing marks a call complete), flags (a Content has no place that marks
// a call not executable).

import { GoogleGenAI, ApiError } from '@google/genai';
import { serve, installedVersion } from '../common/driver.mjs';
import {
  FAKE_API_KEY, FAKE_BASE_URL, requestFetch, orNull, argumentsText, errorType, textPart, reasoningPart, toolCallPart,
} from '../common/replay.mjs';

const LIBRARY = '@google/genai';
const VERSION = installedVersion(import.meta.url, LIBRARY);
if (process.argv[2] !== undefined && process.argv[2] !== 'chat') {
  console.error('usage: node driver.mjs chat');
  process.exit(2);
}

// throwIfStreamErrorChunk's message: `got status: ${status}. ${JSON.stringify(chunk)}`.
const STREAM_ERROR_MESSAGE = /^got status: [^.]*\. (\{.*\})$/s;

/** An ApiError the SDK raised for an error chunk of the stream, as the canonical error; null for anything else. */
function providerError(err) {
  if (!(err instanceof ApiError)) return null;
  const match = STREAM_ERROR_MESSAGE.exec(err.message);
  let body = null;
  if (match) {
    try { body = JSON.parse(match[1])?.error ?? null; } catch { body = null; }
  }
  if (!body || typeof body !== 'object') {
    // Not the stream's error chunk (the replay answers 200, so this is not expected): the SDK's own fields.
    return { type: errorType(err.status), message: err.message };
  }
  return { type: errorType(body.status, body.code), message: typeof body.message === 'string' ? body.message : err.message };
}

/** One part of a Content as the SDK holds it, as a canonical part; null when it has no canonical place. */
function partOf(part) {
  if (!part || typeof part !== 'object') return null;
  const signature = orNull(part.thoughtSignature);
  if (part.functionCall && typeof part.functionCall === 'object') {
    const call = part.functionCall;
    return {
      ...toolCallPart('function', orNull(call.id), null, orNull(call.name), argumentsText(call.args)),
      signature,
    };
  }
  if (typeof part.text === 'string') {
    if (part.thought === true) return reasoningPart(part.text, [], signature);
    return { ...textPart(part.text), signature };
  }
  return null;
}

async function run(request) {
  const ai = new GoogleGenAI({
    apiKey: FAKE_API_KEY,
    httpOptions: { baseUrl: FAKE_BASE_URL, fetch: requestFetch(request), timeout: 8000 },
  });
  const chat = ai.chats.create({ model: 'gemini-2.5-flash' });
  try {
    const stream = await chat.sendMessageStream({ message: 'deltacheck' });
    for await (const chunk of stream) void chunk;  // the history is written when the stream ends
  } catch (err) {
    const error = providerError(err);
    if (error) return { choices: [], usage: null, error };
    throw err;
  }
  const history = chat.getHistory();
  const turn = history.slice(1);  // history[0] is the user message just sent
  const parts = turn.flatMap((content) => (content.parts ?? []).map(partOf).filter((p) => p !== null));
  return { choices: [{ index: 0, parts, finish_reason: null, finish_detail: null }], usage: null, error: null };
}

serve({
  name: process.env.DELTACHECK_ADAPTER_NAME || 'google-genai-node',
  library: LIBRARY,
  version: VERSION,
  protocols: ['gemini'],
  capabilities: ['reasoning', 'reasoning_signature', 'error'],
  capability_notes: {
    finish_reason: 'the chat history holds Content only: Chat.processStreamResponse reads candidates[0].finishReason '
      + 'only to decide whether the turn finished, and keeps neither it nor finishMessage',
    finish_detail: "the chat history holds Content only: a candidate's finishMessage is not kept (the Gemini API "
      + 'response converter, candidateFromMldev, does not even copy it onto the chunks)',
    usage: "the chat history holds Content only: no chunk's usageMetadata is kept",
    multiple_choices: 'Chat.processStreamResponse keeps candidates[0].content of every chunk (by position), no other candidate',
    flags: 'the history keeps each functionCall part as the stream sent it; a Content has no place that marks a call '
      + 'not executable',
    events: 'the chat stream yields the chunks as they came; nothing marks a function call complete',
  },
  code_path: '@google/genai ai.chats.create().sendMessageStream() consumed to its end, then chat.getHistory() '
    + '(the model turn Chat.recordHistory assembled); the SSE bytes come from httpOptions.fetch, so the SDK\'s own '
    + 'SSE splitter and error-chunk check run',
  run,
});
