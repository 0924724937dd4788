package dev.deltacheck.koog

import ai.koog.prompt.dsl.prompt
import ai.koog.prompt.executor.clients.openai.OpenAIChatParams
import ai.koog.prompt.executor.clients.openai.OpenAIClientSettings
import ai.koog.prompt.executor.clients.openai.OpenAILLMClient
import ai.koog.prompt.executor.clients.openai.OpenAIModels
import ai.koog.prompt.executor.clients.openai.OpenAIResponsesParams
import ai.koog.prompt.params.LLMParams
import ai.koog.prompt.streaming.StreamFrame
import dev.deltacheck.driver.Driver
import dev.deltacheck.driver.Replay
import dev.deltacheck.driver.Results
import kotlinx.coroutines.flow.toList
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.withTimeout

/**
 * deltacheck driver for JetBrains Koog's OpenAI client (ai.koog:prompt-executor-openai-client-jvm).
 *
 * `OpenAILLMClient.executeStreaming(prompt, model, tools)` with OpenAIChatParams (Chat Completions) or
 * OpenAIResponsesParams (Responses): the StreamFrame flow is collected and its complete frames are the
 * result: TextComplete, ReasoningComplete and ToolCallComplete become parts in the order they are
 * emitted, End gives the finish reason (and, on Chat, the message's own extra_content from its
 * ResponseMetaInfo.metadata). The client's base URL is a loopback server answering with the
 * fixture's SSE bytes, so Koog's own HTTP client and SSE decoding run.
 *
 * Koog has no error frame, and an error the stream carries reaches the caller only when Koog raises: a Chat
 * error chunk that decodes as an OpenAIChatCompletionStreamResponse (which has no error field) is dropped, and
 * the Responses handler in OpenAILLMClient decodes `error` events (OpenAIStreamEvent.Error) but turns none into
 * a frame. The flow then ends with End as if nothing happened, so the result's error is null and `error` is
 * declared: that silent loss is judged (CONTRACT.md 4.2); where Koog raises, the exception propagates.
 */
private lateinit var replay: Replay
private lateinit var client: OpenAILLMClient
private const val STREAM_LIMIT_MS = 8000L

fun main(args: Array<String>) {
    Driver.claimStdout()
    replay = Replay.start()
    client = OpenAILLMClient(Replay.API_KEY, OpenAIClientSettings(baseUrl = replay.baseUrl()))
    val version = Results.loadedVersion(OpenAILLMClient::class.java, "prompt-executor-openai-client-jvm")
    val common = mapOf(
        "refusal" to "Koog's StreamFrame has no refusal frame; the OpenAI client does not turn refusal deltas into frames",
        "usage" to "StreamFrame.End carries ResponseMetaInfo token counts (input, output, total), not the provider's usage object",
        "events" to "ToolCallComplete frames carry no position in the stream, so a completion's after_chunk (CONTRACT.md 3.4) cannot be given",
        "flags" to "a ToolCallComplete frame carries the arguments text; nothing marks arguments that do not parse",
    )
    Driver.serve(args, "koog", version,
        Driver.Mode(
            "chat",
            "koog-openai-chat",
            "openai-chat",
            listOf("reasoning", "finish_reason", "error", "message_extra_content"),
            "Koog OpenAILLMClient.executeStreaming(prompt with OpenAIChatParams, GPT-4o, no tools), the StreamFrame " +
                "flow collected (TextComplete, ReasoningComplete, ToolCallComplete, End); the client's base URL is a " +
                "loopback server answering with the SSE bytes, so Koog's own HTTP and SSE code runs",
            common + mapOf(
                "multiple_choices" to "Koog's StreamFrame flow has no choice index: one response is assembled",
                "extra_content" to "a StreamFrame.ToolCallComplete is (id, name, content, index): it has no field for a call's provider extension"),
        ) { request -> run(request, OpenAIChatParams()) },
        Driver.Mode(
            "responses",
            "koog-openai-responses",
            "openai-responses",
            listOf("reasoning", "reasoning_signature", "custom_tools", "error"),
            "Koog OpenAILLMClient.executeStreaming(prompt with OpenAIResponsesParams, GPT-4o, no tools), the StreamFrame " +
                "flow collected (TextComplete, ReasoningComplete, ToolCallComplete, End); the client's base URL is a " +
                "loopback server answering with the SSE bytes, so Koog's own HTTP and SSE code runs",
            common + mapOf(
                "finish_reason" to "Koog turns response.completed into StreamFrame.End(finishReason = null): the response status is not kept",
                "finish_detail" to "Koog keeps no incomplete_details: only response.completed becomes a frame",
                "annotations" to "StreamFrame.TextComplete carries the text only, no annotations",
                "item_id" to "ToolCallComplete carries the call id only, not the output item's id",
                "builtin_tools" to "Koog's StreamFrame flow has no frame for a built-in call: ToolCallComplete is a " +
                    "function tool's call (id, name, arguments text) with no item type, and OpenAILLMClient's Responses " +
                    "streaming turns only Item.OutputMessage, Item.Reasoning and Item.FunctionToolCall into frames"),
        ) { request -> run(request, OpenAIResponsesParams()) },
    )
}

private fun run(request: Map<String, Any?>, params: LLMParams): Map<String, Any?> {
    replay.serve(request)
    val frames = runBlocking {
        withTimeout(STREAM_LIMIT_MS) {
            client.executeStreaming(prompt("deltacheck", params) { user("deltacheck") }, OpenAIModels.Chat.GPT4o, emptyList()).toList()
        }
    }
    val chat = request["protocol"] == "openai-chat"
    val reasoning = mutableListOf<Any?>()
    val texts = mutableListOf<Any?>()
    val calls = mutableListOf<Any?>()
    val ordered = mutableListOf<Any?>()
    var finishReason: String? = null
    var messageExtension: Any? = null
    for (frame in frames) {
        val part: Map<String, Any?>? = when (frame) {
            is StreamFrame.TextComplete -> Results.textPart(frame.text, null)
            is StreamFrame.ReasoningComplete -> Results.reasoningPart(frame.content.joinToString(""),
                (frame.summary ?: emptyList()).toMutableList<Any?>(), frame.encrypted)
            is StreamFrame.ToolCallComplete -> Results.toolCallPart("function", frame.id, null, frame.name, frame.content)
            is StreamFrame.End -> {
                finishReason = frame.finishReason
                // The response's metadata (ResponseMetaInfo.metadata) is where Koog would keep a message's provider fields.
                messageExtension = frame.metaInfo.metadata?.get("extra_content")?.let { Results.jsonTree(it.toString()) }
                null
            }
            else -> null
        }
        if (part == null) continue
        ordered.add(part)
        when (frame) {
            is StreamFrame.TextComplete -> texts.add(part)
            is StreamFrame.ReasoningComplete -> reasoning.add(part)
            else -> calls.add(part)
        }
    }
    // Chat Completions parts have no order on the wire: the contract's order (reasoning, text, tool
    // calls); Responses parts keep the order Koog emitted them in, its output-item order.
    if (chat && messageExtension != null) {  // the message's own extra_content, on its text part (CONTRACT.md 3.3)
        if (texts.isEmpty()) texts.add(Results.textPart("", null))
        @Suppress("UNCHECKED_CAST")
        (texts.first() as MutableMap<String, Any?>)["extra_content"] = messageExtension
    }
    val parts = if (chat) (reasoning + texts + calls).toMutableList() else ordered
    return Results.result(mutableListOf<Any>(Results.choice(0, parts, finishReason, null)), null, null)
}
