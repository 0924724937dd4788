package dev.deltacheck.springai;

import com.openai.core.ObjectMappers;
import com.openai.errors.SseException;
import com.openai.models.completions.CompletionUsage;
import dev.deltacheck.driver.Driver;
import dev.deltacheck.driver.Json;
import dev.deltacheck.driver.Replay;
import dev.deltacheck.driver.Results;
import org.springframework.ai.chat.messages.AssistantMessage;
import org.springframework.ai.chat.model.ChatResponse;
import org.springframework.ai.chat.model.Generation;
import org.springframework.ai.chat.model.MessageAggregator;
import org.springframework.ai.chat.prompt.Prompt;
import org.springframework.ai.openai.OpenAiChatModel;
import org.springframework.ai.openai.OpenAiChatOptions;
import reactor.core.publisher.Hooks;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;

/**
 * deltacheck driver for Spring AI's OpenAI chat model (org.springframework.ai:spring-ai-openai).
 *
 * <p>{@code OpenAiChatModel.stream(prompt)} (the official openai-java client underneath, its chunks
 * merged by Spring AI's ChunkMerger), aggregated by Spring AI's own {@code MessageAggregator}, the
 * aggregation stream() itself applies to report the response to its observation. The model's base URL
 * is a loopback server answering with the fixture's SSE bytes, so the SDK's HTTP and SSE code runs.
 *
 * <p>Spring AI's representation, read as it is: the text is the aggregated message text; tool calls
 * are AssistantMessage.ToolCall (id, name, arguments); the finish reason is the name of openai-java's
 * FinishReason enum constant ({@code STOP} for {@code stop}), written back as the wire value it names
 * (lower case), and {@code _UNKNOWN} (a value openai-java does not know) as it is; refusal and
 * reasoning are the message metadata {@code refusal} / {@code reasoningContent}, as the aggregation
 * leaves them, and the message's own {@code extra_content} its metadata {@code extra_content}; usage is the native usage (openai-java's CompletionUsage) of the last ChatResponse
 * stream() emitted. A provider error chunk ends the Flux with openai-java's SseException: the error with no
 * choices (nothing is aggregated on error).
 */
public final class SpringAiDriver {
    // Below the harness's per-fixture timeout, so a Flux that never ends is reported, not killed.
    private static final Duration STREAM_LIMIT = Duration.ofSeconds(8);
    private static Replay replay;
    private static OpenAiChatModel model;

    public static void main(String[] args) throws Exception {
        Driver.claimStdout();
        replay = Replay.start();
        model = OpenAiChatModel.builder()
                .options(OpenAiChatOptions.builder().baseUrl(replay.baseUrl() + "/v1").apiKey(Replay.API_KEY)
                        .model("gpt-4o").maxRetries(0).timeout(Duration.ofSeconds(8)).build())
                .build();
        String version = Results.loadedVersion(OpenAiChatModel.class, "spring-ai-openai");
        Driver.serve(args, "spring-ai-openai", version,
                new Driver.Mode(
                        "chat",
                        "spring-ai-openai-chat",
                        "openai-chat",
                        List.of("refusal", "reasoning", "finish_reason", "usage", "error", "message_extra_content"),
                        "Spring AI OpenAiChatModel.stream(prompt) (openai-java's async client, chunks merged by ChunkMerger), "
                                + "aggregated by Spring AI's MessageAggregator; the model's base URL is a loopback server answering "
                                + "with the SSE bytes, so the SDK's own HTTP and SSE parsing run",
                        Map.of(
                                "multiple_choices", "MessageAggregator aggregates only each ChatResponse's first Generation (getResult()), "
                                        + "so a second choice never reaches the aggregated response",
                                "events", "OpenAiChatModel.stream() emits ChatResponses, no tool-call completion events",
                                "extra_content", "an AssistantMessage.ToolCall is (id, type, name, arguments): it has no field for a "
                                        + "call's provider extension",
                                "flags", "an AssistantMessage.ToolCall is (id, type, name, arguments text): nothing marks arguments that do not parse"),
                        SpringAiDriver::run));
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
        } catch (RuntimeException e) {
            SseException providerError = findCause(e, SseException.class);
            if (providerError == null) throw e;
            return errorResult(providerError);
        }
        ChatResponse response = aggregated.get();
        List<Object> choices = new ArrayList<>();
        if (response != null && response.getResult() != null) choices.add(choice(response.getResult()));
        return Results.result(choices, usage.get(), null);
    }

    /**
     * The usage object a ChatResponse of stream() carries, the last one being the stream's: OpenAiChatModel
     * gives each response a DefaultUsage whose native usage is the CompletionUsage of the ChatCompletion
     * ChunkMerger.chunkToChatCompletion made of the chunk: the chunk's own usage, or, for a chunk that carried
     * none, a CompletionUsage of Spring AI's making with 0 prompt, completion and total tokens. That is passed
     * on as Spring AI reports it (usage the stream never carried is judged, CONTRACT.md 4.2). The aggregated
     * response keeps only counts (MessageAggregator's own DefaultUsage), so the responses are read here.
     */
    private static void keepUsage(ChatResponse response, AtomicReference<Object> usage) {
        Object nativeUsage = response.getMetadata() == null || response.getMetadata().getUsage() == null
                ? null : response.getMetadata().getUsage().getNativeUsage();
        if (!(nativeUsage instanceof CompletionUsage)) return;
        try {
            usage.set(Results.jsonTree(ObjectMappers.jsonMapper().writeValueAsString(nativeUsage)));
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalStateException("openai-java could not write its own CompletionUsage", e);
        }
    }

    private static Map<String, Object> choice(Generation generation) {
        AssistantMessage message = generation.getOutput();
        Map<String, Object> metadata = message.getMetadata();
        List<Object> parts = new ArrayList<>();
        Object reasoning = metadata.get("reasoningContent");
        if (reasoning instanceof String) parts.add(Results.reasoningPart((String) reasoning, null, null));
        String text = message.getText();
        // The message's own extension object: the message metadata is where Spring AI keeps a message's provider fields.
        Object extension = metadata.get("extra_content");
        if (text != null || extension != null) {  // "" too: the comparator omits an empty part (CONTRACT 3.2)
            Map<String, Object> part = Results.textPart(text != null ? text : "", null);
            if (extension != null) part.put("extra_content", extension);
            parts.add(part);
        }
        Object refusal = metadata.get("refusal");
        if (refusal instanceof String) parts.add(Results.refusalPart((String) refusal));
        for (AssistantMessage.ToolCall call : message.getToolCalls()) {
            parts.add(Results.toolCallPart("function", call.id(), null, call.name(), call.arguments()));
        }
        String finish = generation.getMetadata().getFinishReason();
        return Results.choice(0, parts, wireFinishReason(finish), null);
    }

    /** openai-java's enum constant name as the wire value it stands for; `_UNKNOWN` stays as it is. */
    private static String wireFinishReason(String enumName) {
        if (enumName == null || enumName.isEmpty() || enumName.startsWith("_")) return enumName == null || enumName.isEmpty() ? null : enumName;
        return enumName.toLowerCase(java.util.Locale.ROOT);
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> errorResult(SseException e) throws Exception {
        Object body = Json.parse(ObjectMappers.jsonMapper().writeValueAsString(e.body()));
        if (!(body instanceof Map)) throw e;
        Map<String, Object> error = (Map<String, Object>) body;
        Object type = error.get("type") != null ? error.get("type") : error.get("code");
        Object message = error.get("message");
        // An error object without a text message is not one the stream can report: the exception stays
        // (as in the Python adapters); a numeric type is passed on as the number the SDK parsed.
        if (!(message instanceof String)) throw e;
        return Results.result(new ArrayList<>(), null, Results.error(type, message));
    }

    private static <T extends Throwable> T findCause(Throwable e, Class<T> type) {
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (type.isInstance(t)) return type.cast(t);
        }
        return null;
    }
}
