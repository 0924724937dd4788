package dev.deltacheck.springai.v1;

import dev.deltacheck.driver.Driver;
import dev.deltacheck.driver.Json;
import dev.deltacheck.driver.Replay;
import dev.deltacheck.driver.Results;
import org.springframework.ai.chat.messages.AssistantMessage;
import org.springframework.ai.chat.model.ChatResponse;
import org.springframework.ai.chat.model.Generation;
import org.springframework.ai.chat.model.MessageAggregator;
import org.springframework.ai.chat.prompt.Prompt;
import org.springframework.ai.model.ModelOptionsUtils;
import org.springframework.ai.openai.OpenAiChatModel;
import org.springframework.ai.openai.OpenAiChatOptions;
import org.springframework.ai.openai.api.OpenAiApi;
import reactor.core.publisher.Hooks;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;

/**
 * deltacheck driver for Spring AI 1.x's OpenAI chat model (org.springframework.ai:spring-ai-openai 1.x).
 *
 * <p>{@code OpenAiChatModel.stream(prompt)} over Spring AI's own {@code OpenAiApi}: Spring's WebClient (on Reactor
 * Netty) reads the body as server-sent events, each data line is parsed into OpenAiApi's ChatCompletionChunk by
 * Spring AI's ObjectMapper, and chunks are merged by OpenAiStreamFunctionCallingHelper (a tool call's chunks into
 * one) before OpenAiChatModel makes each a ChatResponse. Those are aggregated by Spring AI's own
 * {@code MessageAggregator}, the aggregation stream() itself applies to report the response to its observation. The
 * API's base URL is a loopback server answering with the fixture's SSE bytes, so WebClient's HTTP and SSE code runs.
 * Internal tool execution is off, as for a caller that runs the tools itself (Spring AI 1.x's user-controlled tool
 * execution): the tool calls are the response's, not executed by the model.
 *
 * <p>Spring AI's representation, read as it is: the text is the aggregated message text; tool calls are
 * AssistantMessage.ToolCall (id, name, arguments); the finish reason is the name of OpenAiApi's
 * ChatCompletionFinishReason constant ({@code STOP}) the generation metadata holds, written back as the wire value
 * that constant stands for ({@code stop}), and none for the empty name Spring AI gives a chunk without one; refusal
 * and reasoning are the message metadata {@code refusal} / {@code reasoningContent}, as the aggregation leaves them.
 * Usage is the native usage of the last ChatResponse stream() emitted (OpenAiApi.Usage, or the empty map of Spring
 * AI's EmptyUsage for a chunk that carried none), written by Spring AI's own ObjectMapper. A provider error chunk
 * ({@code {"error": {...}}}) is read as a ChatCompletionChunk, a record with no error field that ignores unknown
 * ones: the chunk carries nothing, the Flux completes and no exception or error body reaches the caller, so the
 * result has no error (the comparator judges the error lost); an exception stream() raises is the driver's error.
 */
public final class SpringAi1Driver {
    // Below the harness's per-fixture timeout, so a Flux that never ends is reported, not killed.
    private static final Duration STREAM_LIMIT = Duration.ofSeconds(8);
    private static Replay replay;
    private static OpenAiChatModel model;

    public static void main(String[] args) throws Exception {
        Driver.claimStdout();
        replay = Replay.start();
        OpenAiApi api = OpenAiApi.builder().baseUrl(replay.baseUrl()).apiKey(Replay.API_KEY).build();
        model = OpenAiChatModel.builder()
                .openAiApi(api)
                .defaultOptions(OpenAiChatOptions.builder().model("gpt-4o").internalToolExecutionEnabled(false).build())
                .build();
        String version = Results.loadedVersion(OpenAiChatModel.class, "spring-ai-openai");
        Driver.serve(args, "spring-ai-openai", version,
                new Driver.Mode(
                        "chat",
                        "spring-ai-openai-chat@1",
                        "openai-chat",
                        List.of("refusal", "reasoning", "finish_reason", "usage", "error"),
                        "Spring AI 1.x OpenAiChatModel.stream(prompt) (its own OpenAiApi: WebClient on Reactor Netty, chunks "
                                + "merged by OpenAiStreamFunctionCallingHelper), aggregated by Spring AI's MessageAggregator; "
                                + "the API's base URL is a loopback server answering with the SSE bytes, so WebClient's own "
                                + "HTTP and SSE parsing run",
                        Map.of(
                                "multiple_choices", "OpenAiStreamFunctionCallingHelper.merge keeps only the first choice of "
                                        + "each chunk, and MessageAggregator aggregates only each ChatResponse's first "
                                        + "Generation (getResult()), so a second choice never reaches the aggregated response",
                                "events", "OpenAiChatModel.stream() emits ChatResponses, no tool-call completion events",
                                "extra_content", "OpenAiApi's ToolCall record (index, id, type, function) ignores unknown fields "
                                        + "and an AssistantMessage.ToolCall is (id, type, name, arguments): nothing keeps a "
                                        + "call's provider extension",
                                "message_extra_content", "OpenAiApi's ChatCompletionMessage record ignores unknown fields and "
                                        + "the message metadata OpenAiChatModel writes has fixed keys (id, role, index, "
                                        + "finishReason, refusal, annotations, reasoningContent): nothing keeps a message's "
                                        + "provider extension",
                                "flags", "an AssistantMessage.ToolCall is (id, type, name, arguments text): nothing marks "
                                        + "arguments that do not parse"),
                        SpringAi1Driver::run));
    }

    private static Map<String, Object> run(Map<String, Object> request) throws Exception {
        replay.serve(request);
        AtomicReference<ChatResponse> aggregated = new AtomicReference<>();
        AtomicReference<Throwable> dropped = new AtomicReference<>();
        Hooks.onErrorDropped(dropped::set);
        Hooks.onOperatorError((error, data) -> {
            dropped.compareAndSet(null, error);
            return error;
        });
        AtomicReference<Object> usage = new AtomicReference<>();
        try {
            new MessageAggregator().aggregate(model.stream(new Prompt("deltacheck")).doOnNext(r -> keepUsage(r, usage)), aggregated::set)
                    .blockLast(STREAM_LIMIT);
        } catch (IllegalStateException e) {
            if (!(e.getCause() instanceof TimeoutException)) throw e;
            // The Flux neither completed nor failed: a caller blocking on it would wait forever.
            throw new IllegalStateException("OpenAiChatModel.stream() neither completed nor failed within "
                    + STREAM_LIMIT.toSeconds() + " s after the whole stream was served"
                    + (dropped.get() == null ? "" : "; the error Reactor saw: " + dropped.get()), dropped.get());
        }
        ChatResponse response = aggregated.get();
        List<Object> choices = new ArrayList<>();
        if (response != null && response.getResult() != null) choices.add(choice(response.getResult()));
        return Results.result(choices, usage.get(), null);
    }

    /**
     * The usage object a ChatResponse of stream() carries, the last one being the stream's: OpenAiChatModel gives
     * each response the chunk's usage as a DefaultUsage whose native usage is OpenAiApi.Usage, or, for a chunk
     * that carried none, Spring AI's EmptyUsage (0 prompt and completion tokens), whose native usage is an empty
     * map. That is passed on as Spring AI's own ObjectMapper writes it (usage the stream never carried is judged,
     * CONTRACT.md 4.2). The aggregated response keeps only counts (MessageAggregator's own DefaultUsage), so the
     * responses are read here.
     */
    private static void keepUsage(ChatResponse response, AtomicReference<Object> usage) {
        if (response.getMetadata() == null || response.getMetadata().getUsage() == null) return;
        Object nativeUsage = response.getMetadata().getUsage().getNativeUsage();
        usage.set(nativeUsage == null ? null : Results.jsonTree(ModelOptionsUtils.toJsonString(nativeUsage)));
    }

    private static Map<String, Object> choice(Generation generation) {
        AssistantMessage message = generation.getOutput();
        Map<String, Object> metadata = message.getMetadata();
        List<Object> parts = new ArrayList<>();
        Object reasoning = metadata.get("reasoningContent");
        if (reasoning instanceof String) parts.add(Results.reasoningPart((String) reasoning, null, null));
        String text = message.getText();
        if (text != null) parts.add(Results.textPart(text, null));  // "" too: the comparator omits an empty part (CONTRACT 3.2)
        Object refusal = metadata.get("refusal");
        if (refusal instanceof String) parts.add(Results.refusalPart((String) refusal));
        for (AssistantMessage.ToolCall call : message.getToolCalls()) {
            parts.add(Results.toolCallPart("function", call.id(), null, call.name(), call.arguments()));
        }
        return Results.choice(0, parts, wireFinishReason(generation.getMetadata().getFinishReason()), null);
    }

    /**
     * The wire value a ChatCompletionFinishReason constant's name stands for, as Spring AI's own ObjectMapper writes
     * the constant ({@code TOOL_CALLS} is {@code tool_calls}); OpenAiChatModel gives the empty name for a chunk without
     * a finish reason, which is none.
     */
    private static String wireFinishReason(String name) {
        if (name == null || name.isEmpty()) return null;
        Object wire = Json.parse(ModelOptionsUtils.toJsonString(OpenAiApi.ChatCompletionFinishReason.valueOf(name)));
        return (String) wire;
    }
}
