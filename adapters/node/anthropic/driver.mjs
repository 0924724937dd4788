// deltacheck driver for the Anthropic TypeScript SDK (`@anthropic-ai/sdk`).
//
// Mode `messages` (anthropic-node): `client.messages.stream(...)` (MessageStream), result from
// `finalMessage()`, plus its `contentBlock` events (emitted at content_block_stop with the finished
// block) for tool_use / server_tool_use / mcp_tool_use blocks as `tool_call_done`. The bytes get in through the
// client's own fetch path: a custom `fetch` given to the Anthropic constructor answers with the
// fixture's SSE text, so the SDK's own SSE decoder runs.
//
// The final Message is mapped block by block: text (citations as annotations), thinking (signature
// as the SDK holds it), redacted_thinking, tool_use / server_tool_use / mcp_tool_use (the SDK's parsed `input`
// serialised with JSON.stringify), and every `*_tool_result` block copied as a server tool result.
// Usage is the Message's `usage` as the SDK merged it; finish is `stop_reason` / `stop_sequence`.
// An APIError the SDK raises for the stream's `error` event becomes `error` with no choices (the
// SDK discards the partial message). What it cannot express: refusal parts (not in this protocol),
// item ids, custom tools, multiple choices.

import Anthropic from '@anthropic-ai/sdk';
import { serve, installedVersion } from '../common/driver.mjs';
import {
  FAKE_API_KEY, FAKE_BASE_URL, replayFetch, chunkLocator, orNull, argumentsText, errorType,
  textPart, reasoningPart, redactedPart, toolCallPart, serverToolResultPart,
} from '../common/replay.mjs';

const VERSION = installedVersion(import.meta.url, '@anthropic-ai/sdk');
if (process.argv[2] !== undefined && process.argv[2] !== 'messages') {
  console.error('usage: node driver.mjs messages');
  process.exit(2);
}

/** The stream's `error` event as the SDK raised it (an APIError with no HTTP status): its `type` and message. */
function providerError(err) {
  if (!(err instanceof Anthropic.APIError) || err.status !== undefined) return null;
  const body = err.error;
  if (!body || typeof body !== 'object' || !body.error || typeof body.error !== 'object') return null;
  // apiMessage is the event's error.message; without a text one, the SDK's own message (it writes the error as JSON).
  const message = typeof err.apiMessage === 'string' ? err.apiMessage : err.message;
  return { choices: [], usage: null, error: { type: errorType(err.type, body.error.code), message } };
}

function blockToPart(block) {
  switch (block?.type) {
    case 'text':
      return textPart(block.text, block.citations ?? []);
    case 'thinking':
      return reasoningPart(block.thinking, [], orNull(block.signature));
    case 'redacted_thinking':
      return redactedPart(block.data);
    case 'tool_use':
      return toolCallPart('function', orNull(block.id), null, orNull(block.name), argumentsText(block.input));
    case 'server_tool_use':
    case 'mcp_tool_use':  // run by the API itself (CONTRACT 3.1); MessageStream's tracksToolInput covers tool_use and
      // server_tool_use only, so the SDK keeps an mcp_tool_use block's input as it started
      return toolCallPart('server', orNull(block.id), null, orNull(block.name), argumentsText(block.input));
    default:
      if (typeof block?.type === 'string' && block.type.endsWith('_tool_result')) {
        return serverToolResultPart(block.type, block.tool_use_id, block.content);
      }
      return null;  // a block type the canonical form has no place for
  }
}

async function run(request) {
  const locate = chunkLocator(request.chunks);
  const events = [];
  const client = new Anthropic({
    apiKey: FAKE_API_KEY, baseURL: FAKE_BASE_URL, fetch: replayFetch(request.sse, { cuts: request.sse_cuts }), maxRetries: 0, timeout: 8000,
  });
  const stream = client.messages.stream({
    model: 'claude-sonnet-4-5', max_tokens: 1024, messages: [{ role: 'user', content: 'deltacheck' }],
  });
  stream.on('streamEvent', (event) => { locate(event); });
  stream.on('contentBlock', (block) => {
    if (!['tool_use', 'server_tool_use', 'mcp_tool_use'].includes(block?.type)) return;
    events.push({
      type: 'tool_call_done', choice: 0, id: orNull(block.id), name: orNull(block.name),
      arguments: argumentsText(block.input), after_chunk: locate.last(),
    });
  });
  let message;
  try {
    message = await stream.finalMessage();
  } catch (err) {
    const result = providerError(err);
    if (result) return { ...result, events };
    throw err;
  }
  const parts = message.content.map(blockToPart).filter((p) => p !== null);
  return {
    choices: [{
      index: 0, parts, finish_reason: orNull(message.stop_reason), finish_detail: orNull(message.stop_sequence),
    }],
    usage: orNull(message.usage),
    error: null,
    events,
  };
}

serve({
  name: process.env.DELTACHECK_ADAPTER_NAME || 'anthropic-node',
  library: '@anthropic-ai/sdk',
  version: VERSION,
  protocols: ['anthropic-messages'],
  capabilities: ['finish_detail', 'reasoning', 'reasoning_signature', 'annotations', 'server_tools', 'finish_reason', 'usage',
    'error', 'events'],
  capability_notes: {
    flags: "a ToolUseBlock's input is MessageStream's parse of the input JSON; nothing marks an input that was cut off",
  },
  code_path: '@anthropic-ai/sdk client.messages.stream() (MessageStream) -> finalMessage(), with its contentBlock '
    + 'events for tool_use blocks; the SSE bytes come from a custom fetch given to the client, so the SDK\'s own '
    + 'SSE parser runs',
  run,
});
