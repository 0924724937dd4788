// deltacheck driver for openai-node (the `openai` npm package), shared by the folders that pin it ("One source" below).
//
// Modes:
//   chat       openai-node-chat: `client.chat.completions.stream(...)` (ChatCompletionStream), result
//              from `finalChatCompletion()`, plus its `tool_calls.function.arguments.done` events.
//   responses  openai-node-responses: `client.responses.stream(...)` (ResponseStream), result from
//              `finalResponse()`, plus the `response.output_item.done` events it re-emits for
//              function_call / custom_tool_call items and built-in client calls (the call as the event
//              carries it; after_chunk is the chunk its `event` event was, emitted just before).
// The bytes get in through the client's own fetch path: a custom `fetch` given to the OpenAI
// constructor answers with the fixture's SSE text, so the SDK's own SSE decoder and Stream run.
//
// What it cannot express:
//   chat: annotations (chat text has none), item ids, custom and server tools, reasoning signatures.
//     Reasoning is what the library leaves on the message as the unknown delta fields
//     `reasoning_content` / `reasoning` (it copies a delta's unknown fields onto the message, each
//     fragment replacing the last); a call's `extra_content` is the unknown tool-call field it copies
//     the same way, and the message's own `extra_content` (on its text part) the unknown delta field.
//     The done event carries neither the choice nor the call id: the id is read from the stream's
//     public `currentChatCompletionSnapshot` at the moment of the event, and the choice is the one the
//     chunk being processed carries (or, when it carries several, the one whose call matches the
//     event's index, name and arguments).
//   responses: multiple choices, server tools (not in this protocol). The final Response is mapped
//     item by item.
// An APIError the SDK raises for the provider's error chunk/event becomes `error` with no choices,
// its type and code as the wire's error object carries them; so does a flat Responses error event,
// which ResponseStream (openai 6) rejects with as is, or (openai 7) wraps whole in an APIError.
//
// One source: this module serves both pinned majors, ../openai (openai 7) and ../openai-6 (openai 6, the
// adapters named `…@6`). Node resolves a bare import (`import OpenAI from 'openai'`) from the importing
// file's own folder, so this module never imports the library itself: each folder's driver.mjs calls
// `main({load, base})` with `load = (name) => import(name)` written in that driver.mjs, which resolves from
// its folder, and `base = its import.meta.url`, where the installed version is read. This folder has no
// node_modules, so a bare import added here fails in every folder instead of running the wrong major
// (tests/test_node_drivers.py holds the drivers to this).

import { serve, installedVersion } from './driver.mjs';
import {
  FAKE_API_KEY, FAKE_BASE_URL, requestFetch, chunkLocator, orNull, argumentsText, errorType,
  textPart, refusalPart, reasoningPart, toolCallPart,
} from './replay.mjs';

// Why `flags` (CONTRACT.md 3.3: a call kept but marked not executable) is left out.
const FLAGS_NOTE = 'the SDK keeps a call\'s arguments as text and marks nothing (parsed_arguments exists only for '
  + 'auto-parseable tools, with no invalid state)';
// The `openai` module's default export, loaded by `main` from the calling folder's node_modules.
let OpenAI;

function client(request) {
  return new OpenAI({
    apiKey: FAKE_API_KEY, baseURL: `${FAKE_BASE_URL}/v1`, fetch: requestFetch(request),
    maxRetries: 0, timeout: 8000,
  });
}

/**
 * The error type of an error object from the wire, as is (CONTRACT.md 3.1: its type, else its code). A flat
 * Responses `error` event is the error itself, and its own `type` names the event ("error"), so its code is
 * the error's type.
 */
function wireErrorType(body, flatEvents) {
  return flatEvents && body.type === 'error' ? errorType(body.code) : errorType(body.type, body.code);
}

/**
 * The provider's own error, as the SDK raised it from an error chunk or event (no HTTP status); null for any
 * other exception. `flatEvents`: the protocol has flat error events (Responses).
 */
function providerError(err, flatEvents = false) {
  if (flatEvents && err && typeof err === 'object' && !(err instanceof Error) && err.type === 'error'
      && typeof err.message === 'string') {
    // openai 6: ResponseStream re-emits every event under its type, and an event named 'error' rejects the
    // stream with the event object itself.
    return { choices: [], usage: null, error: { type: wireErrorType(err, flatEvents), message: err.message } };
  }
  if (!(err instanceof OpenAI.APIError) || err.status !== undefined || !err.error || typeof err.error !== 'object') {
    return null;
  }
  // The wire's error object: a Chat error chunk's `error`, a Responses event's nested `error`, or (openai 7)
  // a flat Responses error event whole.
  const body = err.error;
  const message = typeof body.message === 'string' ? body.message : err.message;
  return { choices: [], usage: null, error: { type: wireErrorType(body, flatEvents), message } };
}

// -- chat ----------------------------------------------------------------------------------------

function chatChoice(choice) {
  const message = choice.message ?? {};
  const parts = [];
  const reasoning = [];
  for (const key of ['reasoning_content', 'reasoning']) {
    const value = message[key];
    if (typeof value === 'string' && !reasoning.includes(value)) reasoning.push(value);
  }
  for (const text of reasoning) parts.push(reasoningPart(text));
  // The message's own extra_content is an unknown delta field the accumulator copies onto the message, as above.
  const extension = message.extra_content ?? null;
  if (typeof message.content === 'string' || extension !== null) {  // "" too: the comparator omits an empty part
    const text = textPart(typeof message.content === 'string' ? message.content : '');
    if (extension !== null) text.extra_content = extension;
    parts.push(text);
  }
  if (typeof message.refusal === 'string') parts.push(refusalPart(message.refusal));
  for (const call of message.tool_calls ?? []) {
    if (call === undefined) continue;  // a hole in the library's sparse array is not a call
    const fn = call.function ?? {};
    const part = toolCallPart('function', orNull(call.id), null, orNull(fn.name), argumentsText(fn.arguments));
    // The accumulator copies a tool-call delta's unknown fields onto the call (Object.assign), extra_content too.
    if (call.extra_content !== undefined && call.extra_content !== null) part.extra_content = call.extra_content;
    parts.push(part);
  }
  if (message.function_call) {
    parts.push(toolCallPart('function', null, null, orNull(message.function_call.name), argumentsText(message.function_call.arguments)));
  }
  return { index: choice.index, parts, finish_reason: orNull(choice.finish_reason), finish_detail: null };
}

async function runChat(request) {
  const locate = chunkLocator(request.chunks);
  const events = [];
  let current = null;  // the chunk the library is processing: 'chunk' fires before its done events
  const stream = client(request).chat.completions.stream({
    model: 'gpt-4o', messages: [{ role: 'user', content: 'deltacheck' }],
  });
  stream.on('chunk', (chunk) => {
    current = { chunk, index: locate(chunk) };
  });
  stream.on('tool_calls.function.arguments.done', (event) => {
    const snapshot = stream.currentChatCompletionSnapshot;
    const carried = (current?.chunk?.choices ?? []).map((c) => c.index);
    let choice = carried.length === 1 ? carried[0] : null;
    if (choice === null) {
      const matches = carried.filter((i) => {
        const call = snapshot?.choices?.[i]?.message?.tool_calls?.[event.index];
        return call && call.function?.name === event.name && call.function?.arguments === event.arguments;
      });
      choice = matches.length ? matches[0] : 0;
    }
    const call = snapshot?.choices?.[choice]?.message?.tool_calls?.[event.index];
    events.push({
      type: 'tool_call_done', choice, id: orNull(call?.id), name: orNull(event.name),
      arguments: event.arguments, after_chunk: current ? current.index : null,
    });
  });
  let completion;
  try {
    completion = await stream.finalChatCompletion();
  } catch (err) {
    const result = providerError(err);
    if (result) return { ...result, events };
    throw err;
  }
  const choices = completion.choices.filter((c) => c !== undefined).map(chatChoice);
  choices.sort((a, b) => a.index - b.index);
  return { choices, usage: orNull(completion.usage), error: null, events };
}

// -- responses -----------------------------------------------------------------------------------

function responseParts(output) {
  const parts = [];
  for (const item of output ?? []) {
    if (!item) continue;
    if (item.type === 'message') {
      for (const content of item.content ?? []) {
        if (content?.type === 'output_text') parts.push(textPart(content.text, content.annotations ?? []));
        else if (content?.type === 'refusal') parts.push(refusalPart(content.refusal));
      }
    } else if (item.type === 'reasoning') {
      const text = (item.content ?? []).filter((c) => c?.type === 'reasoning_text').map((c) => c.text).join('');
      const summary = (item.summary ?? []).map((s) => s?.text);
      parts.push(reasoningPart(text, summary, orNull(item.encrypted_content)));
    } else if (item.type === 'function_call') {
      parts.push(toolCallPart('function', orNull(item.call_id), orNull(item.id), orNull(item.name), argumentsText(item.arguments)));
    } else if (item.type === 'custom_tool_call') {
      parts.push(toolCallPart('custom', orNull(item.call_id), orNull(item.id), orNull(item.name), argumentsText(item.input)));
    } else {
      const call = builtinCall(item);
      if (call) parts.push(call);
    }
  }
  return parts;
}

// A built-in call the client carries out or answers (CONTRACT.md 3.3 openai-responses rule 7), read from the
// item as the SDK keeps it (the JSON the API sent): apply_patch_call.operation, local_shell_call.action,
// shell_call.action (its environment says whether the API ran it in a container), tool_search_call.arguments
// (with its execution), mcp_approval_request's server_label, name and arguments. Anything else is none.
function builtinCall(item) {
  let payload;
  if (item.type === 'apply_patch_call') payload = item.operation;
  else if (item.type === 'local_shell_call') payload = item.action;
  else if (item.type === 'shell_call') {
    if (item.environment && item.environment.type !== 'local') return null;  // run in a hosted container
    payload = item.action;
  } else if (item.type === 'tool_search_call') {
    if (item.execution !== 'client') return null;  // executed by the server
    payload = item.arguments;
  } else if (item.type === 'mcp_approval_request') {
    payload = { server_label: item.server_label, name: item.name, arguments: item.arguments };
  } else return null;
  const answer = item.type === 'mcp_approval_request' ? item.id : item.call_id;
  return toolCallPart('builtin', orNull(answer), orNull(item.id), item.type, argumentsText(payload));
}

async function runResponses(request) {
  const locate = chunkLocator(request.chunks);
  const events = [];
  const stream = client(request).responses.stream({ model: 'gpt-4o', input: 'deltacheck' });
  stream.on('event', (event) => { locate(event); });  // fires before the event's own name
  stream.on('response.output_item.done', (event) => {
    for (const call of responseParts([event.item]).filter((part) => part.type === 'tool_call')) {
      events.push({
        type: 'tool_call_done', choice: 0, id: call.id, name: call.name, arguments: call.arguments,
        after_chunk: locate.last(),
      });
    }
  });
  let response;
  try {
    response = await stream.finalResponse();
  } catch (err) {
    const result = providerError(err, true);
    if (result) return { ...result, events };
    throw err;
  }
  const failure = response.error;
  const error = failure && typeof failure === 'object'
    ? { type: errorType(failure.type, failure.code), message: String(failure.message ?? '') }
    : null;
  return {
    choices: [{
      index: 0,
      parts: responseParts(response.output),
      finish_reason: orNull(response.status),
      finish_detail: orNull(response.incomplete_details?.reason),
    }],
    usage: orNull(response.usage),
    error,
    events,
  };
}

const MODES = {
  chat: {
    name: 'openai-node-chat',
    protocols: ['openai-chat'],
    capabilities: ['refusal', 'reasoning', 'finish_reason', 'usage', 'error', 'multiple_choices', 'events', 'extra_content',
      'message_extra_content'],
    capability_notes: { flags: FLAGS_NOTE },
    code_path: 'openai-node client.chat.completions.stream() (ChatCompletionStream) -> finalChatCompletion(), '
      + 'with its tool_calls.function.arguments.done events; the SSE bytes come from a custom fetch '
      + 'given to the client, so the SDK\'s own SSE parser runs',
    run: runChat,
  },
  responses: {
    name: 'openai-node-responses',
    protocols: ['openai-responses'],
    capabilities: ['finish_detail', 'refusal', 'reasoning', 'reasoning_signature', 'annotations', 'item_id', 'custom_tools',
      'builtin_tools', 'finish_reason', 'usage', 'error', 'events'],
    capability_notes: { flags: FLAGS_NOTE },
    code_path: 'openai-node client.responses.stream() (ResponseStream) -> finalResponse(), with its '
      + 'response.output_item.done events for function, custom and built-in client tool calls; the SSE bytes come from a custom '
      + 'fetch given to the client, so the SDK\'s own SSE parser runs',
    run: runResponses,
  },
};

/**
 * Serve the mode named by the command line with the `openai` package of the calling folder: `load(name)` imports a
 * package from there (a dynamic import written in that folder's driver.mjs), `base` is that driver's
 * import.meta.url (its node_modules hold the installed version).
 */
export async function main({ load, base }) {
  OpenAI = (await load('openai')).default;
  const version = installedVersion(base, 'openai');
  const impl = MODES[process.argv[2]];
  if (!impl) {
    console.error(`usage: node driver.mjs ${Object.keys(MODES).join('|')}`);
    process.exit(2);
  }
  serve({
    ...impl,
    name: process.env.DELTACHECK_ADAPTER_NAME || impl.name,
    library: 'openai',
    version,
  });
}
