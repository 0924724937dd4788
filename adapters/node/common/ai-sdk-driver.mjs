// deltacheck driver for the Vercel AI SDK (`ai` streamText with `@ai-sdk/openai`, `@ai-sdk/anthropic`,
// `@ai-sdk/openai-compatible`, `@ai-sdk/google` and `@ai-sdk/amazon-bedrock`), shared by the folders that pin it
// ("One source" below).
//
// Modes:
//   openai-chat             ai-sdk-openai-chat: streamText({model: createOpenAI(...).chat(id)})
//   openai-responses        ai-sdk-openai-responses: streamText({model: createOpenAI(...).responses(id)})
//   openai-compatible-chat  ai-sdk-openai-compatible-chat: streamText({model: createOpenAICompatible({name, ...}).chatModel(id)})
//   anthropic               ai-sdk-anthropic: streamText({model: createAnthropic(...)(id)})
//   google                  ai-sdk-google: streamText({model: createGoogleGenerativeAI(...)(id)}) (../ai-sdk only)
//   bedrock                 ai-sdk-bedrock: streamText({model: createAmazonBedrock({region, accessKeyId, ...})(id)})
//                           (../ai-sdk only)
// The bytes get in through the provider's own fetch path: a custom `fetch` given to the provider's
// create function answers with the fixture's body (SSE text, or Bedrock's binary event-stream messages), so
// the provider's own stream decoder and chunk schemas run. The whole stream of parts is consumed, then the
// final result is read.
//
// One source: this module serves both pinned majors, ../ai-sdk (ai 7 with @ai-sdk/* 4) and ../ai-sdk-6
// (ai 6 with @ai-sdk/* 3, the adapters named `…@6`). Node resolves a bare import (`import * as ai from 'ai'`)
// from the importing file's own folder, so this module never imports a package itself: each folder's
// driver.mjs calls `main({load, base})` with `load = (name) => import(name)` written in that driver.mjs,
// which resolves from its folder, and `base = its import.meta.url`, where the installed versions are read.
// This folder has no node_modules, so a bare import added here fails in every folder instead of running
// the wrong major (tests/test_node_drivers.py holds the drivers to this). ai 7 renamed the result's
// fullStream to `stream` and the option includeRawChunks to `include.rawChunks`, and hands a provider's
// mid-stream error over as a StreamProviderError where ai 6 passes the provider's error object itself;
// the driver uses each major's own names.
//
// Events: each `tool-call` part of the stream (the SDK emits it when it has the call's complete
// input, while the stream is still being read) is a `tool_call_done` event. streamText is asked for
// the provider's raw chunks too, which come through the same stream in order, just before what the
// provider made of them; after_chunk is the fixture chunk the last raw chunk was. A provider-executed
// call is an event only on Anthropic, where a server_tool_use block is a tool call of the canonical
// result; on Responses a hosted tool item (web_search_call, ...) is none.
//
// Request configuration: the SDK surfaces a tool call only for a declared tool, so every tool name
// found in the chunks is declared before streaming (a function tool with the permissive schema
// {type: "object"} and no execute function; a Responses custom tool call's name as
// `openai.tools.customTool`). maxRetries is 0.
//
// Mapping (never repaired): Chat Completions has no part order on the wire, so the two chat modes read
// `result.reasoningText` / `result.text` / `result.toolCalls` in the canonical kind order (on
// openai-chat a call's `extra_content` from its providerMetadata, the SDK's per-call provider fields,
// under `openai`; @ai-sdk/openai's chat chunk schema keeps no extra_content, so it is never there; the
// message's own `extra_content`, on the text part, from the step's providerMetadata under the provider's
// key, `openai` or the compatible provider's name: neither chunk schema reads a delta's extra_content);
// the others read `result.content` in the SDK's order. Tool-call input is the SDK's parsed value
// serialised with JSON.stringify (an invalid call the SDK could not parse carries the raw text, passed
// as is, and its `invalid: true` is the canonical `flagged`).
// finish_reason is `rawFinishReason` (the provider's value; the normalised `finishReason` is not
// used), finish_detail is Anthropic's `providerMetadata.anthropic.stopSequence`, or on Responses
// `rawFinishReason` (there the provider's incomplete_details.reason, or the SDK's own 'error' for a
// failed response or an error event); usage is `usage.raw`.
// Gemini: `result.content` in the SDK's order. GoogleGenerativeAILanguageModel.doStream is where the stream is
// assembled: it joins consecutive text (and thought) parts into one text (reasoning) block whatever their
// signatures, and streamText keeps the last thoughtSignature a block's deltas carried, in the part's
// providerMetadata.google; a functionCall part (whole `args`, or Vertex `partialArgs` built up by its
// GoogleJSONAccumulator) becomes a tool-call part with that metadata, and the SDK makes up an id for a call
// that has none. finish_reason is `rawFinishReason` (the candidate's finishReason, or a prompt's
// blockReason), finish_detail `providerMetadata.google.finishMessage`.
// Bedrock: `result.content` in the SDK's order. AmazonBedrockChatLanguageModel.doStream assembles the ConverseStream
// (the body decoded by its own @smithy/eventstream-codec decoder, createAmazonBedrockEventStreamDecoder): blocks
// keyed by contentBlockIndex, a text or reasoning block opened by its first non-empty delta (or by a
// contentBlockStart without toolUse), a call's input deltas joined and emitted as one tool-call part at its
// contentBlockStop (input "" becomes "{}"), a reasoning signature in the part's providerMetadata.amazonBedrock
// (as is the redactedContent of a redacted block, joined and given at its contentBlockStop). The provider is
// created with SigV4 credentials (region us-east-1, access key and secret `test`), its signing fetch wrapping
// the replay. finish_reason is `rawFinishReason` (messageStop.stopReason), usage `usage.raw` (metadata.usage).
// Responses reasoning: the SDK gives one reasoning part per summary part, each with
// providerMetadata.openai.itemId (and reasoningEncryptedContent); the parts of one item are one
// reasoning item exactly as the SDK itself turns them back into one when it sends them to the
// provider (@ai-sdk/openai convertToOpenAIResponsesInput: grouped by itemId, each non-empty text a
// summary text, the last encrypted content given wins). The SDK never reads reasoning_text, so the
// canonical text is what it kept of it: nothing.
// streamText does not throw: an `error` part whose error is the provider's error (a StreamProviderError,
// the error chunk/event object in ai 6, or the APICallError carrying it when it came before any output)
// becomes `error`, its type and code as the SDK holds them; any other error part (the SDK rejecting a
// chunk, for example) is raised.
//
// What it cannot express (n/a):
//   all modes: multiple choices.
//   openai-chat: refusal (the provider streams refusal deltas as text; the SDK has no refusal
//     part). Reasoning is the result's reasoningText, which the SDK has a place for though
//     @ai-sdk/openai's chat chunk schema reads no reasoning_content / reasoning (judged).
//   openai-compatible-chat: refusal (appended to the text), extra_content (only Gemini's thought
//     signature is kept, renamed). Reasoning is reasoning_content, else reasoning.
//   openai-responses: finish_reason (rawFinishReason is incomplete_details.reason, the status is
//     not exposed), refusal (streamed as text).
//   anthropic: server tools (provider-executed calls and results are reshaped, block types lost).
//   bedrock: annotations (citation deltas are validated, then dropped), server tools (a server_tool_use call is a
//     plain tool-call part; a toolResult block has no part of its own).
// Anthropic annotations are the text part's providerMetadata.anthropic.citations, where the SDK keeps
// the provider's own citation objects (@ai-sdk/anthropic 3 kept only web search citations there and
// turned document citations into separate `source` parts only; 4 keeps both).

import { serve, installedVersion } from './driver.mjs';
import {
  FAKE_API_KEY, FAKE_BASE_URL, requestFetch, chunkLocator, orNull, argumentsText, errorType,
  textPart, reasoningPart, redactedPart, toolCallPart,
} from './replay.mjs';

// The `ai` module and what is used of it, loaded by `main` from the calling folder's node_modules.
let ai, streamText, jsonSchema, tool, APICallError;
// ai 7 renamed fullStream to `stream` and includeRawChunks to `include.rawChunks` (the old names are
// deprecated there) and added StreamProviderError; ai 6 has only the old ones (see the header). Set by `main`.
let AI_MAJOR;

// Each provider's create function, by family. Its package, `@ai-sdk/<family>`, is imported when a mode that
// uses it starts (`main`), so a folder pins only the providers its manifest names.
const PROVIDERS = {
  openai: { create: (module, settings) => module.createOpenAI(settings) },
  anthropic: { create: (module, settings) => module.createAnthropic(settings) },
  'openai-compatible': {
    create: (module, settings) => module.createOpenAICompatible({ ...settings, name: COMPATIBLE_NAME }),
  },
  google: { create: (module, settings) => module.createGoogleGenerativeAI(settings), apiVersion: 'v1beta' },
  // SigV4 with dummy credentials, as a Bedrock user configures it (no apiKey: that is bearer authentication), and
  // the model path under the base URL (`/model/{id}/converse-stream`).
  'amazon-bedrock': {
    create: (module, { fetch }) => module.createAmazonBedrock({
      region: 'us-east-1', accessKeyId: 'test', secretAccessKey: 'test', baseURL: FAKE_BASE_URL, fetch,
    }),
  },
};
// The provider name given to createOpenAICompatible: the key of its providerMetadata.
const COMPATIBLE_NAME = 'deltacheck';

// -- request configuration: the tool names in the stream ----------------------------------------

function toolNames(protocol, chunks) {
  const fn = new Set();
  const custom = new Set();
  const add = (set, name) => { if (typeof name === 'string' && name !== '') set.add(name); };
  for (const chunk of chunks) {
    if (!chunk || typeof chunk !== 'object') continue;
    if (protocol === 'openai-chat') {
      for (const choice of Array.isArray(chunk.choices) ? chunk.choices : []) {
        const delta = choice?.delta ?? {};
        for (const call of Array.isArray(delta.tool_calls) ? delta.tool_calls : []) add(fn, call?.function?.name);
        add(fn, delta.function_call?.name);
      }
    } else if (protocol === 'openai-responses') {
      const items = [chunk.item, ...(Array.isArray(chunk.response?.output) ? chunk.response.output : [])];
      for (const item of items) {
        if (item?.type === 'function_call') add(fn, item.name);
        else if (item?.type === 'custom_tool_call') add(custom, item.name);
      }
    } else if (protocol === 'anthropic-messages') {
      if (chunk.type === 'content_block_start' && chunk.content_block?.type === 'tool_use') add(fn, chunk.content_block.name);
    } else if (protocol === 'gemini') {
      for (const candidate of Array.isArray(chunk.candidates) ? chunk.candidates : []) {
        const parts = candidate?.content?.parts;
        for (const part of Array.isArray(parts) ? parts : []) add(fn, part?.functionCall?.name);
      }
    } else if (protocol === 'bedrock-converse') {
      // A server_tool_use call too: @ai-sdk/amazon-bedrock makes every toolUse block a tool-call part.
      add(fn, chunk.contentBlockStart?.start?.toolUse?.name);
    }
  }
  for (const name of fn) custom.delete(name);
  return { fn, custom };
}

function declareTools(provider, names) {
  const tools = {};
  for (const name of names.fn) tools[name] = tool({ inputSchema: jsonSchema({ type: 'object' }) });
  for (const name of names.custom) tools[name] = provider.tools.customTool({ name });
  return tools;
}

// -- errors --------------------------------------------------------------------------------------

/** The error type in a provider error frame the SDK attached to an APICallError (CONTRACT.md 3.1). */
function frameType(frame) {
  if (!frame || typeof frame !== 'object') return null;
  if (frame.type === 'response.failed') return errorType(frame.response?.error?.type, frame.response?.error?.code);
  if (frame.error && typeof frame.error === 'object') return errorType(frame.error.type, frame.error.code);
  if (frame.type === 'error') return errorType(frame.code);  // Responses' flat error event: its type names the event
  return errorType(frame.type, frame.code);
}

/** {type, message} when an `error` stream part is the provider's own error; null otherwise. */
function providerError(err) {
  if (APICallError.isInstance(err)) {
    // The replay always answers 200, so an APICallError is the provider's error frame, raised by the
    // provider before any output. The frame is in `data` (OpenAI) or the JSON `responseBody`.
    let frame = err.data;
    if (frame === undefined && typeof err.responseBody === 'string') {
      try { frame = JSON.parse(err.responseBody); } catch { frame = undefined; }
    }
    return { type: frameType(frame), message: err.message };
  }
  if (ai.StreamProviderError?.isInstance(err)) {
    // ai 7 normalises a mid-stream provider error (normalizeStreamProviderError) to the type and code the
    // provider read; for a failed Responses response @ai-sdk/openai gives its own type 'response.failed'
    // and the response error's code (createOpenAIProviderStreamError).
    return { type: err.type === 'response.failed' ? errorType(err.code) : errorType(err.type, err.code), message: err.message };
  }
  if (err && typeof err === 'object' && !(err instanceof Error) && typeof err.message === 'string') {
    // ai 6 passes the wire's error object on (Chat, Anthropic), or the provider's summary of a Responses
    // error frame {message, type, code, data}, whose type is 'response.failed' for a failed response.
    return { type: err.type === 'response.failed' ? errorType(err.code) : errorType(err.type, err.code), message: err.message };
  }
  return null;
}

// -- mapping -------------------------------------------------------------------------------------

/** Custom tool input is text in the SDK; an invalid call it could not parse keeps the raw text. */
function callArguments(call, textInput = false) {
  if ((textInput || call.invalid) && typeof call.input === 'string') return call.input;
  return argumentsText(call.input === undefined ? undefined : JSON.stringify(call.input));
}

async function chatChoice(result, names, mode) {
  const parts = [];
  const reasoning = await result.reasoningText;  // undefined when the SDK produced no reasoning part
  if (typeof reasoning === 'string') parts.push(reasoningPart(reasoning));
  const text = textPart(await result.text);  // "" when the SDK has no text: the comparator omits an empty part
  // The message's own provider fields live in the step's providerMetadata, under the provider's key.
  const extension = (await result.providerMetadata)?.[mode.metadataKey]?.extra_content;
  if (extension !== undefined && extension !== null) text.extra_content = extension;
  parts.push(text);
  for (const call of await result.toolCalls) {
    if (call.providerExecuted) continue;
    const part = toolCallPart('function', orNull(call.toolCallId), null, orNull(call.toolName), callArguments(call),
      call.invalid === true);
    if (mode.capabilities.includes('extra_content')) {
      // A call's provider fields live in its providerMetadata, under the provider's name.
      const extension = call.providerMetadata?.[mode.family]?.extra_content;
      if (extension !== undefined && extension !== null) part.extra_content = extension;
    }
    parts.push(part);
  }
  return { index: 0, parts, finish_reason: orNull(await result.rawFinishReason), finish_detail: null };
}

/** The reasoning parts of one item as that item (see the header: the SDK's own grouping). */
function reasoningItem(sdkParts) {
  const summary = [];
  let encrypted = null;
  for (const part of sdkParts) {
    if (part.text.length > 0) summary.push(part.text);
    const content = part.providerMetadata?.openai?.reasoningEncryptedContent;
    if (content !== undefined && content !== null) encrypted = content;
  }
  return reasoningPart('', summary, encrypted);
}

// On Responses, a tool-call part for a tool the request did not declare is the SDK's part for a built-in call
// (apply_patch, local_shell, shell, tool_search: its provider-defined tools), which this adapter cannot express
// (capability_notes.builtin_tools): it is no function call, so it is left out, as hosted tool calls are.
const isBuiltinCall = (part, names) => !names.fn.has(part.toolName) && !names.custom.has(part.toolName);

async function responsesChoice(result, names) {
  const parts = [];
  const reasoningItems = new Map();  // itemId -> {sdkParts, index}: where that item's part is
  for (const part of await result.content) {
    if (part.type === 'reasoning') {
      const itemId = part.providerMetadata?.openai?.itemId;
      let item = typeof itemId === 'string' ? reasoningItems.get(itemId) : undefined;
      if (item === undefined) {
        item = { sdkParts: [], index: parts.length };
        parts.push(null);
        if (typeof itemId === 'string') reasoningItems.set(itemId, item);
      }
      item.sdkParts.push(part);
      parts[item.index] = reasoningItem(item.sdkParts);
      continue;
    }
    if (part.type === 'text') {
      parts.push(textPart(part.text, part.providerMetadata?.openai?.annotations ?? []));
    } else if (part.type === 'tool-call' && !part.providerExecuted && !isBuiltinCall(part, names)) {
      const kind = names.custom.has(part.toolName) ? 'custom' : 'function';
      parts.push(toolCallPart(kind, orNull(part.toolCallId), orNull(part.providerMetadata?.openai?.itemId),
        orNull(part.toolName), callArguments(part, kind === 'custom'), part.invalid === true));
    }
  }
  return { index: 0, parts, finish_reason: null, finish_detail: orNull(await result.rawFinishReason) };
}

async function anthropicChoice(result) {
  const parts = [];
  for (const part of await result.content) {
    if (part.type === 'text') {
      parts.push(textPart(part.text, part.providerMetadata?.anthropic?.citations ?? []));
    } else if (part.type === 'reasoning') {
      const meta = part.providerMetadata?.anthropic ?? {};
      if (typeof meta.redactedData === 'string') parts.push(redactedPart(meta.redactedData));
      else parts.push(reasoningPart(part.text, [], orNull(meta.signature)));
    } else if (part.type === 'tool-call' && !part.providerExecuted) {
      parts.push(toolCallPart('function', orNull(part.toolCallId), null, orNull(part.toolName), callArguments(part),
        part.invalid === true));
    }
  }
  const metadata = await result.providerMetadata;
  return {
    index: 0, parts, finish_reason: orNull(await result.rawFinishReason),
    finish_detail: orNull(metadata?.anthropic?.stopSequence),
  };
}

/** A Gemini part's thoughtSignature, which @ai-sdk/google keeps in the part's providerMetadata.google. */
const googleSignature = (part) => orNull(part.providerMetadata?.google?.thoughtSignature);

async function geminiChoice(result) {
  const parts = [];
  for (const part of await result.content) {
    if (part.type === 'text') {
      parts.push({ ...textPart(part.text), signature: googleSignature(part) });
    } else if (part.type === 'reasoning') {
      parts.push(reasoningPart(part.text, [], googleSignature(part)));
    } else if (part.type === 'tool-call' && !part.providerExecuted) {
      parts.push({
        ...toolCallPart('function', orNull(part.toolCallId), null, orNull(part.toolName), callArguments(part),
          part.invalid === true),
        signature: googleSignature(part),
      });
    }
  }
  const metadata = await result.providerMetadata;
  return {
    index: 0, parts, finish_reason: orNull(await result.rawFinishReason),
    finish_detail: orNull(metadata?.google?.finishMessage),
  };
}

/** A Bedrock reasoning part's fields, which @ai-sdk/amazon-bedrock keeps in its providerMetadata.amazonBedrock. */
const bedrockReasoning = (part) => part.providerMetadata?.amazonBedrock ?? {};

async function bedrockChoice(result) {
  const parts = [];
  for (const part of await result.content) {
    if (part.type === 'text') {
      parts.push(textPart(part.text));
    } else if (part.type === 'reasoning') {
      const meta = bedrockReasoning(part);
      if (typeof meta.redactedContent === 'string') parts.push(redactedPart(meta.redactedContent));
      else if (typeof meta.redactedData === 'string') parts.push(redactedPart(meta.redactedData));
      else parts.push(reasoningPart(part.text, [], orNull(meta.signature)));
    } else if (part.type === 'tool-call' && !part.providerExecuted) {
      parts.push(toolCallPart('function', orNull(part.toolCallId), null, orNull(part.toolName), callArguments(part),
        part.invalid === true));
    }
  }
  return { index: 0, parts, finish_reason: orNull(await result.rawFinishReason), finish_detail: null };
}

/**
 * A Bedrock chunk as @ai-sdk/amazon-bedrock hands it on as a raw chunk: its payload without the padding `p`, which
 * the provider deletes (createAmazonBedrockEventStreamResponseHandler); only for finding which chunk was consumed.
 */
function bedrockRawChunk(chunk) {
  if (!chunk || typeof chunk !== 'object') return chunk;
  return Object.fromEntries(Object.entries(chunk).map(([type, payload]) => {
    if (!payload || typeof payload !== 'object' || Array.isArray(payload)) return [type, payload];
    const { p: _padding, ...rest } = payload;
    return [type, rest];
  }));
}

// -- running -------------------------------------------------------------------------------------

async function run(mode, providerModule, request) {
  const family = PROVIDERS[mode.family];
  const settings = {
    apiKey: FAKE_API_KEY, baseURL: `${FAKE_BASE_URL}/${family.apiVersion ?? 'v1'}`,
    fetch: requestFetch(request),
  };
  const provider = family.create(providerModule, settings);
  const model = mode.model(provider);
  const names = toolNames(request.protocol, request.chunks);
  const tools = declareTools(provider, names);
  const result = streamText({
    model, prompt: 'deltacheck', maxRetries: 0,
    ...(AI_MAJOR >= 7 ? { include: { rawChunks: true } } : { includeRawChunks: true }),
    ...(Object.keys(tools).length ? { tools } : {}),
    onError: () => {},  // error parts are read from the stream below
  });
  const locate = chunkLocator(mode.rawChunk ? request.chunks.map(mode.rawChunk) : request.chunks);
  const errors = [];
  const events = [];
  for await (const part of AI_MAJOR >= 7 ? result.stream : result.fullStream) {
    if (part.type === 'raw') {
      locate(part.rawValue);
    } else if (part.type === 'tool-call' && (!part.providerExecuted || mode.serverCalls)
        && !(request.protocol === 'openai-responses' && isBuiltinCall(part, names))) {
      const custom = names.custom.has(part.toolName);
      events.push({
        type: 'tool_call_done', choice: 0, id: orNull(part.toolCallId), name: orNull(part.toolName),
        arguments: callArguments(part, custom), after_chunk: locate.last(),
      });
    } else if (part.type === 'error') {
      errors.push(part.error);
    }
  }
  const foreign = errors.find((e) => providerError(e) === null);
  if (foreign !== undefined) {
    throw foreign instanceof Error ? foreign : new Error(`streamText error part: ${JSON.stringify(foreign)}`);
  }
  const error = errors.length ? providerError(errors[0]) : null;
  let choice, usage;
  try {
    choice = await mode.choice(result, names, mode);
    usage = orNull((await result.usage)?.raw);
  } catch (err) {
    if (error) return { choices: [], usage: null, error, events };  // the SDK built no step after the error
    throw err;
  }
  return { choices: [choice], usage, error, events };
}

const MODES = {
  'openai-chat': {
    name: 'ai-sdk-openai-chat', family: 'openai', metadataKey: 'openai', protocols: ['openai-chat'],
    model: (provider) => provider.chat('gpt-4o'),
    capabilities: ['reasoning', 'finish_reason', 'usage', 'error', 'events', 'flags', 'extra_content', 'message_extra_content'],
    capability_notes: {
      refusal: "@ai-sdk/openai's chat model streams refusal deltas as text, indistinguishable from content",
      multiple_choices: "@ai-sdk/openai's chat model reads choices[0] of every chunk",
    },
    choice: chatChoice,
    code_path: 'ai streamText() with createOpenAI({fetch}).chat(model): the final result\'s reasoningText, text, toolCalls, '
      + 'rawFinishReason and usage.raw, and the provider error and tool-call parts (events) from the stream; '
      + 'the SSE bytes come from a custom fetch, so the provider\'s own SSE parser runs',
  },
  'openai-responses': {
    name: 'ai-sdk-openai-responses', family: 'openai', protocols: ['openai-responses'],
    model: (provider) => provider.responses('gpt-4o'),
    capabilities: ['finish_detail', 'reasoning', 'reasoning_signature', 'annotations', 'item_id', 'custom_tools', 'usage',
      'error', 'events', 'flags'],
    capability_notes: {
      finish_reason: 'the response status is not exposed: rawFinishReason is incomplete_details.reason (mapped as finish_detail), '
        + "or the SDK's own 'error' for a failed response",
      refusal: '@ai-sdk/openai emits response.refusal.delta as a text-delta, indistinguishable from text',
      builtin_tools: '@ai-sdk/openai turns built-in calls into tool-call parts of its own provider-tool input schemas, '
        + 'not the items\' fields (OpenAIResponsesLanguageModel.doStream): apply_patch {callId, operation}, local_shell '
        + '{action} with camelCased keys (timeoutMs, workingDirectory), shell {action: {commands}} without its limits, '
        + 'tool_search {arguments, call_id}, and an mcp_approval_request a dynamic mcp.<name> call under a generated '
        + 'toolCallId plus a tool-approval-request',
    },
    choice: responsesChoice,
    code_path: 'ai streamText() with createOpenAI({fetch}).responses(model): the final result\'s content '
      + '(providerMetadata.openai itemId, annotations and reasoningEncryptedContent), rawFinishReason and '
      + 'usage.raw, and the provider error and tool-call parts (events) from the stream; the SSE bytes come '
      + 'from a custom fetch, so the provider\'s own SSE parser runs',
  },
  'openai-compatible-chat': {
    name: 'ai-sdk-openai-compatible-chat', family: 'openai-compatible', metadataKey: COMPATIBLE_NAME,
    protocols: ['openai-chat'], model: (provider) => provider.chatModel('deltacheck'),
    capabilities: ['reasoning', 'finish_reason', 'usage', 'error', 'events', 'flags', 'message_extra_content'],
    capability_notes: {
      refusal: "@ai-sdk/openai-compatible's chat model appends refusal deltas to the text part "
        + '(OpenAICompatibleChatLanguageModel.doStream), indistinguishable from content',
      multiple_choices: "@ai-sdk/openai-compatible's chat model reads choices[0] of every chunk",
      extra_content: "@ai-sdk/openai-compatible keeps only a call's extra_content.google.thought_signature, renamed "
        + 'providerMetadata.<name>.thoughtSignature (OpenAICompatibleChatLanguageModel.doStream, its tool-call '
        + "tracker's extractMetadata): a translated value (CONTRACT.md 4.2), and no other extra_content key",
    },
    choice: chatChoice,
    code_path: `ai streamText() with createOpenAICompatible({name: '${COMPATIBLE_NAME}', fetch}).chatModel(model): the final `
      + 'result\'s reasoningText, text, toolCalls, rawFinishReason and usage.raw, and the provider error and tool-call '
      + 'parts (events) from the stream; the SSE bytes come from a custom fetch, so the provider\'s own SSE parser runs',
  },
  anthropic: {
    name: 'ai-sdk-anthropic', family: 'anthropic', protocols: ['anthropic-messages'], serverCalls: true,
    model: (provider) => provider('claude-sonnet-4-5'),
    capabilities: ['finish_detail', 'reasoning', 'reasoning_signature', 'annotations', 'finish_reason', 'usage', 'error',
      'events', 'flags'],
    capability_notes: {
      server_tools: 'provider-executed results become tool-result parts re-keyed into the SDK\'s own shape (a web_search_tool_result\'s '
        + 'content becomes {url, title, pageAge, encryptedContent, type}), and the result block type is not kept',
    },
    choice: anthropicChoice,
    code_path: 'ai streamText() with createAnthropic({fetch})(model): the final result\'s content '
      + '(providerMetadata.anthropic signature / redactedData / citations), rawFinishReason, providerMetadata stopSequence '
      + 'and usage.raw, and the provider error and tool-call parts (events) from the stream; the SSE bytes '
      + 'come from a custom fetch, so the provider\'s own SSE parser runs',
  },
  google: {
    name: 'ai-sdk-google', family: 'google', protocols: ['gemini'], model: (provider) => provider('gemini-2.5-flash'),
    capabilities: ['finish_detail', 'reasoning', 'reasoning_signature', 'finish_reason', 'usage', 'error', 'events', 'flags'],
    capability_notes: {
      multiple_choices: "@ai-sdk/google's language model reads candidates[0] of every chunk (GoogleGenerativeAILanguageModel.doStream)",
    },
    choice: geminiChoice,
    code_path: 'ai streamText() with createGoogleGenerativeAI({fetch})(model): the final result\'s content '
      + '(providerMetadata.google.thoughtSignature on text, reasoning and tool-call parts), rawFinishReason, '
      + 'providerMetadata.google.finishMessage and usage.raw, and the provider error and tool-call parts (events) '
      + 'from the stream; the SSE bytes come from a custom fetch, so the provider\'s own SSE parser runs',
  },
  bedrock: {
    name: 'ai-sdk-bedrock', family: 'amazon-bedrock', protocols: ['bedrock-converse'],
    model: (provider) => provider('us.anthropic.claude-sonnet-4-5-20250929-v1:0'),
    capabilities: ['reasoning', 'reasoning_signature', 'finish_reason', 'usage', 'error', 'events', 'flags'],
    capability_notes: {
      annotations: "@ai-sdk/amazon-bedrock's stream chunk schema accepts a citation delta, but doStream emits nothing "
        + 'for it (no source part, no providerMetadata), nor does doGenerate keep a citation: its text part has no '
        + 'place for one',
      server_tools: "@ai-sdk/amazon-bedrock's toolUse start schema has no `type`, so a server_tool_use call becomes a "
        + 'plain tool-call part (never providerExecuted), and it has no part for a toolResult block (its start opens a '
        + 'text block, and its delta matches no member of the delta union of the chunk schema)',
    },
    choice: bedrockChoice,
    rawChunk: bedrockRawChunk,
    code_path: 'ai streamText() with createAmazonBedrock({region, accessKeyId, secretAccessKey, baseURL, fetch})(model): '
      + 'the final result\'s content (providerMetadata.amazonBedrock signature / redactedContent on reasoning parts), '
      + 'rawFinishReason and usage.raw, and the provider error and tool-call parts (events) from the stream; the '
      + 'event-stream bytes come from a custom fetch under the provider\'s SigV4 signing fetch, so the provider\'s own '
      + 'event-stream decoder runs',
  },
};

/**
 * Serve the mode named by the command line with the packages of the calling folder: `load(name)` imports a
 * package from there (a dynamic import written in that folder's driver.mjs), `base` is that driver's
 * import.meta.url (its node_modules hold the installed versions).
 */
export async function main({ load, base }) {
  ai = await load('ai');
  ({ streamText, jsonSchema, tool, APICallError } = ai);
  const version = installedVersion(base, 'ai');
  AI_MAJOR = Number(version.split('.')[0]);
  const mode = MODES[process.argv[2]];
  if (!mode) {
    console.error(`usage: node driver.mjs ${Object.keys(MODES).join('|')}`);
    process.exit(2);
  }
  const providerPackage = `@ai-sdk/${mode.family}`;
  const providerModule = await load(providerPackage);
  serve({
    name: process.env.DELTACHECK_ADAPTER_NAME || mode.name,
    library: 'ai',
    version,
    protocols: mode.protocols,
    capabilities: mode.capabilities,
    capability_notes: mode.capability_notes,
    code_path: `${mode.code_path} (provider package ${providerPackage} ${installedVersion(base, providerPackage)})`,
    run: (request) => run(mode, providerModule, request),
  });
}
