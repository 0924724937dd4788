// deltacheck driver for the Anthropic TypeScript SDK (`@anthropic-ai/sdk`) and its Bedrock client
// (`@anthropic-ai/bedrock-sdk`).
//
// Mode `messages` (anthropic-node): `client.messages.stream(...)` (MessageStream), result from
// `finalMessage()`, plus its `contentBlock` events (emitted at content_block_stop with the finished
// block) for tool_use / server_tool_use / mcp_tool_use blocks as `tool_call_done`. The bytes get in through the
// client's own fetch path: a custom `fetch` given to the Anthropic constructor answers with the
// fixture's SSE text, so the SDK's own SSE decoder runs.
//
// Mode `bedrock` (anthropic-node-bedrock, manifest transport `bedrock-invoke`): the same stream and
// mapping through `AnthropicBedrock` (dummy AWS credentials, SigV4 signing left on). Its request goes to
// `/model/{model}/invoke-with-response-stream`; the custom `fetch` answers with the run request's
// `body_base64`, the fixture's events as InvokeModelWithResponseStream event-stream messages
// (`application/vnd.amazon.eventstream`), which the Bedrock client's own middleware decodes
// (`eventStreamToSSEResponse`: the AWS SDK's `de_ResponseStream`) into the SSE that MessageStream reads.
//
// The final Message is mapped block by block: text (citations as annotations), thinking (signature
// as the SDK holds it), redacted_thinking, tool_use / server_tool_use / mcp_tool_use (the SDK's parsed `input`
// serialised with JSON.stringify), and every `*_tool_result` block copied as a server tool result.
// Usage is the Message's `usage` as the SDK merged it; finish is `stop_reason` / `stop_sequence`.
// An APIError the SDK raises for the stream's `error` event becomes `error` with no choices (the
// SDK discards the partial message). What it cannot express: refusal parts (not in this protocol),
// item ids, custom tools, multiple choices.

import Anthropic from '@anthropic-ai/sdk';
import { AnthropicBedrock } from '@anthropic-ai/bedrock-sdk';
import { serve, installedVersion } from '../common/driver.mjs';
import {
  FAKE_API_KEY, FAKE_BASE_URL, requestFetch, chunkLocator, orNull, argumentsText, errorType,
  textPart, reasoningPart, redactedPart, toolCallPart, serverToolResultPart,
} from '../common/replay.mjs';

const MODE = process.argv[2] ?? 'messages';
if (!['messages', 'bedrock'].includes(MODE)) {
  console.error('usage: node driver.mjs messages|bedrock');
  process.exit(2);
}
const SDK_VERSION = installedVersion(import.meta.url, '@anthropic-ai/sdk');
const BEDROCK_VERSION = installedVersion(import.meta.url, '@anthropic-ai/bedrock-sdk');

/** The client a mode drives, its `fetch` answering with the request's body. */
function client(request) {
  const options = { baseURL: FAKE_BASE_URL, maxRetries: 0, timeout: 8000 };
  if (MODE === 'bedrock') {
    const fetch = requestFetch(request); // body_base64: the event-stream messages, one read each or at sse_cuts
    // Dummy credentials and region: the client signs with them (SigV4), nothing checks the signature.
    return new AnthropicBedrock({ ...options, awsAccessKey: 'test', awsSecretKey: 'test', awsRegion: 'us-east-1', fetch });
  }
  return new Anthropic({ ...options, apiKey: FAKE_API_KEY, fetch: requestFetch(request) });
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
  const model = MODE === 'bedrock' ? 'anthropic.claude-sonnet-4-5-20250929-v1:0' : 'claude-sonnet-4-5';
  const stream = client(request).messages.stream({
    model, max_tokens: 1024, messages: [{ role: 'user', content: 'deltacheck' }],
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

const CODE_PATHS = {
  messages: '@anthropic-ai/sdk client.messages.stream() (MessageStream) -> finalMessage(), with its contentBlock '
    + 'events for tool_use blocks; the SSE bytes come from a custom fetch given to the client, so the SDK\'s own '
    + 'SSE parser runs',
  bedrock: `@anthropic-ai/bedrock-sdk AnthropicBedrock().messages.stream() (@anthropic-ai/sdk ${SDK_VERSION} MessageStream) `
    + '-> finalMessage(), with its contentBlock events for tool_use blocks; a custom fetch given to the client answers '
    + 'with the InvokeModelWithResponseStream event-stream body, which the client\'s own middleware decodes',
};

serve({
  name: process.env.DELTACHECK_ADAPTER_NAME || (MODE === 'bedrock' ? 'anthropic-node-bedrock' : 'anthropic-node'),
  library: MODE === 'bedrock' ? '@anthropic-ai/bedrock-sdk' : '@anthropic-ai/sdk',
  version: MODE === 'bedrock' ? BEDROCK_VERSION : SDK_VERSION,
  protocols: ['anthropic-messages'],
  capabilities: ['finish_detail', 'reasoning', 'reasoning_signature', 'annotations', 'server_tools', 'finish_reason', 'usage',
    'error', 'events'],
  capability_notes: {
    flags: "a ToolUseBlock's input is MessageStream's parse of the input JSON; nothing marks an input that was cut off",
  },
  code_path: CODE_PATHS[MODE],
  run,
});
