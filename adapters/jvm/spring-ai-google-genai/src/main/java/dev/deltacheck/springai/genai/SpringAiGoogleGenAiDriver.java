package dev.deltacheck.springai.genai;

import com.google.genai.Client;
import com.google.genai.JsonSerializable;
import com.google.genai.errors.ApiException;
import com.google.genai.types.HttpOptions;
import dev.deltacheck.driver.Driver;
import dev.deltacheck.driver.Json;
import dev.deltacheck.driver.Replay;
import dev.deltacheck.driver.Results;
import org.springframework.ai.chat.messages.AssistantMessage;
import org.springframework.ai.chat.model.ChatResponse;
import org.springframework.ai.chat.model.Generation;
import org.springframework.ai.chat.model.MessageAggregator;
import org.springframework.ai.chat.prompt.Prompt;
import org.springframework.ai.google.genai.DeltacheckReplayedParts;
import org.springframework.ai.google.genai.GoogleGenAiChatModel;
import org.springframework.ai.google.genai.GoogleGenAiChatOptions;
import reactor.core.publisher.Hooks;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;

/**
 * deltacheck driver for Spring AI's Google GenAI chat model (org.springframework.ai:spring-ai-google-genai).
 *
 * <p>{@code GoogleGenAiChatModel.stream(prompt)} (Google's Java GenAI SDK, com.google.genai, underneath:
 * {@code models.generateContentStream}, one ChatResponse per chunk), aggregated by Spring AI's own
 * {@code MessageAggregator}, the aggregation stream() itself applies to report the response to its
 * observation. The SDK's base URL is a loopback server answering
 * {@code POST /v1beta/models/{model}:streamGenerateContent?alt=sse} with the fixture's SSE bytes, so the
 * SDK's own HTTP client (OkHttp) and SSE reading run.
 *
 * <p>Spring AI's representation, read as it is: with thought parts present the aggregation keeps their text
 * as the message metadata {@code thoughts} and the rest as {@code outputWithoutThoughts} (the message text
 * itself is both joined), so those are the reasoning and text parts; else the text is the message text. Tool
 * calls are AssistantMessage.ToolCall (id, name, arguments). A part's thought signature is where Spring AI's
 * own request mapping puts it when the message goes back to Gemini (DeltacheckReplayedParts): Spring AI keeps
 * the signatures of a chunk as one metadata list and gives the i-th to the i-th function call, none to text.
 * The finish reason is the aggregated generation's (the SDK's FinishReason as text); usage is the native
 * usage (the SDK's GenerateContentResponseUsageMetadata, written by the SDK) of the last ChatResponse
 * stream() emitted. An error chunk makes the SDK throw ApiException and the Flux fail: the error, with no
 * choices (nothing is aggregated on error).
 */
public final class SpringAiGoogleGenAiDriver {
    // Below the harness's per-fixture timeout, so a Flux that never ends is reported, not killed.
    private static final Duration STREAM_LIMIT = Duration.ofSeconds(8);
    private static Replay replay;
    private static GoogleGenAiChatModel model;

    public static void main(String[] args) throws Exception {
        Driver.claimStdout();
        replay = Replay.start();
        Client client = Client.builder().apiKey(Replay.API_KEY)
                .httpOptions(HttpOptions.builder().baseUrl(replay.baseUrl()).timeout(8000).build()).build();
        model = GoogleGenAiChatModel.builder().genAiClient(client)
                .options(GoogleGenAiChatOptions.builder().model(GoogleGenAiChatModel.ChatModel.GEMINI_2_5_FLASH)
                        .includeThoughts(true).build())
                .build();
        String version = Results.loadedVersion(GoogleGenAiChatModel.class, "spring-ai-google-genai");
        Driver.serve(args, "spring-ai-google-genai", version,
                new Driver.Mode(
                        "gemini",
                        "spring-ai-google-genai",
                        "gemini",
                        List.of("reasoning", "reasoning_signature", "finish_reason", "usage", "error"),
                        "Spring AI GoogleGenAiChatModel.stream(prompt) (the com.google.genai SDK's generateContentStream), "
                                + "aggregated by Spring AI's MessageAggregator; the SDK's base URL is a loopback server answering "
                                + "with the SSE bytes, so the SDK's own HTTP and SSE reading run; a part's thought signature is "
                                + "where Spring AI's request mapping puts it when it sends the message back",
                        Map.of(
                                "multiple_choices", "MessageAggregator aggregates only each ChatResponse's first Generation "
                                        + "(getResult()), so a second candidate never reaches the aggregated response",
                                "finish_detail", "responseCandidateToGeneration reads the candidate's finishReason only; "
                                        + "its finishMessage is not kept",
                                "events", "GoogleGenAiChatModel.stream() emits ChatResponses, no tool-call completion events",
                                "flags", "an AssistantMessage.ToolCall is (id, type, name, arguments text): nothing marks a call "
                                        + "that cannot be executed"),
                        SpringAiGoogleGenAiDriver::run));
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
            throw new IllegalStateException("GoogleGenAiChatModel.stream() neither completed nor failed within "
                    + STREAM_LIMIT.toSeconds() + " s after the whole stream was served"
                    + (dropped.get() == null ? "" : "; the error Reactor saw: " + dropped.get()), dropped.get());
        } catch (RuntimeException e) {
            ApiException providerError = findCause(e, ApiException.class);
            if (providerError == null) throw e;
            Object type = providerError.status() != null && !providerError.status().isEmpty()
                    ? providerError.status() : (Object) (long) providerError.code();
            return Results.result(new ArrayList<>(), null, Results.error(type, providerError.message()));
        }
        ChatResponse response = aggregated.get();
        List<Object> choices = new ArrayList<>();
        if (response != null && response.getResult() != null) choices.add(choice(response.getResult()));
        return Results.result(choices, usage.get(), null);
    }

    /**
     * The usage a ChatResponse of stream() carries, the last one being the stream's: Spring AI gives each a
     * GoogleGenAiUsage whose native usage is the chunk's usageMetadata as the SDK parsed it, written here by the
     * SDK; for a chunk that carried none, the native usage is Spring AI's own map of zero counts, passed on as it
     * is (usage the stream never carried is judged, CONTRACT.md 4.2).
     */
    private static void keepUsage(ChatResponse response, AtomicReference<Object> usage) {
        Object nativeUsage = response.getMetadata() == null || response.getMetadata().getUsage() == null
                ? null : response.getMetadata().getUsage().getNativeUsage();
        if (nativeUsage instanceof JsonSerializable) {
            usage.set(Results.jsonTree(((JsonSerializable) nativeUsage).toJson()));
        } else if (nativeUsage instanceof Map) {
            usage.set(new TreeMap<>((Map<?, ?>) nativeUsage));
        }
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> choice(Generation generation) {
        AssistantMessage message = generation.getOutput();
        Map<String, Object> metadata = message.getMetadata();
        List<String> replayedParts = DeltacheckReplayedParts.of(model, message);
        String textSignature = null;
        List<String> callSignatures = new ArrayList<>();
        for (String json : replayedParts) {
            Map<String, Object> part = (Map<String, Object>) Json.parse(json);
            String signature = (String) part.get("thoughtSignature");
            if (part.containsKey("functionCall")) callSignatures.add(signature);
            else if (part.containsKey("text") && signature != null) textSignature = signature;
        }
        List<Object> parts = new ArrayList<>();
        Object thoughts = metadata.get("thoughts");
        String text = message.getText();
        if (thoughts instanceof String) {
            parts.add(Results.reasoningPart((String) thoughts, null, null));
            text = (String) metadata.get("outputWithoutThoughts");
        }
        if (text != null) parts.add(signed(Results.textPart(text, null), textSignature));  // "" too: the comparator omits it
        List<AssistantMessage.ToolCall> calls = message.getToolCalls();
        for (int i = 0; i < calls.size(); i++) {
            AssistantMessage.ToolCall call = calls.get(i);
            String signature = i < callSignatures.size() ? callSignatures.get(i) : null;
            parts.add(signed(Results.toolCallPart("function", call.id(), null, call.name(), call.arguments()), signature));
        }
        return Results.choice(0, parts, generation.getMetadata().getFinishReason(), null);
    }

    /** A text or tool-call part with the thoughtSignature Spring AI sends back on it (CONTRACT.md 3.1, gemini). */
    private static Map<String, Object> signed(Map<String, Object> part, String signature) {
        part.put("signature", signature);
        return part;
    }

    private static <T extends Throwable> T findCause(Throwable e, Class<T> type) {
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (type.isInstance(t)) return type.cast(t);
        }
        return null;
    }
}
