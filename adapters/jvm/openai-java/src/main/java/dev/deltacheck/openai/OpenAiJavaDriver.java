package dev.deltacheck.openai;

import com.openai.client.OpenAIClient;
import com.openai.client.okhttp.OpenAIOkHttpClient;
import com.openai.core.ObjectMappers;
import com.openai.core.http.StreamResponse;
import com.openai.errors.SseException;
import com.openai.helpers.ChatCompletionAccumulator;
import com.openai.helpers.ResponseAccumulator;
import com.openai.models.chat.completions.ChatCompletion;
import com.openai.models.chat.completions.ChatCompletionChunk;
import com.openai.models.chat.completions.ChatCompletionCreateParams;
import com.openai.models.responses.Response;
import com.openai.models.responses.ResponseCreateParams;
import com.openai.models.responses.ResponseStreamEvent;
import dev.deltacheck.driver.Driver;
import dev.deltacheck.driver.Json;
import dev.deltacheck.driver.OpenAiShapes;
import dev.deltacheck.driver.Replay;
import dev.deltacheck.driver.Results;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

/**
 * deltacheck driver for openai-java (com.openai:openai-java).
 *
 * <p>chat: {@code client.chat().completions().createStreaming(params)}, every chunk fed to
 * {@code ChatCompletionAccumulator.accumulate}, the result read from {@code chatCompletion()}.
 * responses: {@code client.responses().createStreaming(params)}, every event fed to
 * {@code ResponseAccumulator.accumulate}, the result read from {@code response()}.
 * The client is the real OkHttp client with its base URL at a loopback server that answers with
 * the fixture's SSE bytes, so the SDK's own HTTP and SSE code runs. The assembled object is written
 * as JSON by the SDK's own mapper and read field by field (a tool call's {@code extra_content} is one of the
 * additional properties ChatCompletionAccumulator copies from the call's first delta; the message's own, one of
 * those it copies from each delta onto the message).
 *
 * <p>An SseException (the SDK raises it for a chunk with an {@code error} key) becomes the result's
 * error with no choices: the accumulator holds no completion until a finish_reason arrives.
 */
public final class OpenAiJavaDriver {
    /** Why `flags` (CONTRACT.md 3.3: a call kept but marked not executable) is left out. */
    private static final String FLAGS_NOTE = "the SDK keeps a call's arguments as text and marks nothing: no field says they do not parse";

    private static Replay replay;
    private static OpenAIClient client;

    public static void main(String[] args) throws Exception {
        Driver.claimStdout();
        replay = Replay.start();
        client = OpenAIOkHttpClient.builder().baseUrl(replay.baseUrl() + "/v1").apiKey(Replay.API_KEY)
                .maxRetries(0).timeout(Duration.ofSeconds(8)).build();
        String version = Results.loadedVersion(ChatCompletionAccumulator.class, "openai-java-core");
        List<String> chatCapabilities = List.of("refusal", "reasoning", "finish_reason", "usage", "error", "multiple_choices",
                "extra_content", "message_extra_content");
        List<String> responsesCapabilities = List.of("finish_detail", "refusal", "reasoning", "reasoning_signature",
                "annotations", "item_id", "custom_tools", "builtin_tools", "finish_reason", "usage", "error");
        Driver.serve(args, "openai-java", version,
                new Driver.Mode(
                        "chat",
                        "openai-java-chat",
                        "openai-chat",
                        chatCapabilities,
                        "openai-java OpenAIOkHttpClient chat().completions().createStreaming(), each chunk fed to "
                                + "ChatCompletionAccumulator.accumulate(), then chatCompletion(); the client's base URL is a "
                                + "loopback server answering with the SSE bytes, so the SDK's own HTTP and SSE parsing run",
                        Map.of("events", "ChatCompletionAccumulator emits no tool-call completion events; it only builds "
                                        + "the final ChatCompletion",
                                "flags", FLAGS_NOTE),
                        OpenAiJavaDriver::runChat),
                new Driver.Mode(
                        "responses",
                        "openai-java-responses",
                        "openai-responses",
                        responsesCapabilities,
                        "openai-java OpenAIOkHttpClient responses().createStreaming(), each event fed to "
                                + "ResponseAccumulator.accumulate(), then response(); the client's base URL is a loopback "
                                + "server answering with the SSE bytes, so the SDK's own HTTP and SSE parsing run",
                        Map.of("events", "ResponseAccumulator emits no tool-call completion events; it only keeps the "
                                        + "terminal Response",
                                "flags", FLAGS_NOTE),
                        OpenAiJavaDriver::runResponses));
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> asTree(Object libraryObject) throws Exception {
        return (Map<String, Object>) Json.parse(ObjectMappers.jsonMapper().writeValueAsString(libraryObject));
    }

    /** The provider's error object as the SDK parsed it into the exception (null when it could not). */
    @SuppressWarnings("unchecked")
    private static Map<String, Object> providerError(SseException e) throws Exception {
        Object body = Json.parse(ObjectMappers.jsonMapper().writeValueAsString(e.body()));
        if (!(body instanceof Map)) return null;
        Map<String, Object> error = (Map<String, Object>) body;
        Object type = error.get("type") != null ? error.get("type") : error.get("code");
        Object message = error.get("message");
        // An error object without a text message is not one the stream can report: the exception stays
        // (as in the Python adapters); a numeric type is passed on as the number the SDK parsed.
        if (!(message instanceof String)) return null;
        return Results.result(new ArrayList<>(), null, Results.error(type, message));
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> runChat(Map<String, Object> request) throws Exception {
        replay.serve(request);
        ChatCompletionCreateParams params = ChatCompletionCreateParams.builder().model("gpt-4o")
                .addUserMessage("deltacheck").build();
        ChatCompletionAccumulator accumulator = ChatCompletionAccumulator.create();
        try (StreamResponse<ChatCompletionChunk> stream = client.chat().completions().createStreaming(params)) {
            stream.stream().forEach(accumulator::accumulate);
        } catch (SseException e) {
            Map<String, Object> result = providerError(e);
            if (result != null) return result;
            throw e;
        }
        ChatCompletion completion = accumulator.chatCompletion();
        Map<String, Object> tree = asTree(completion);
        List<Object> choices = new ArrayList<>();
        for (Object choice : (List<Object>) tree.get("choices")) choices.add(OpenAiShapes.chatChoice((Map<String, Object>) choice));
        choices.sort(Comparator.comparingLong(c -> (Long) ((Map<String, Object>) c).get("index")));
        return Results.result(choices, tree.get("usage"), null);
    }

    private static Map<String, Object> runResponses(Map<String, Object> request) throws Exception {
        replay.serve(request);
        ResponseCreateParams params = ResponseCreateParams.builder().model("gpt-4o").input("deltacheck").build();
        ResponseAccumulator accumulator = ResponseAccumulator.create();
        try (StreamResponse<ResponseStreamEvent> stream = client.responses().createStreaming(params)) {
            stream.stream().forEach(accumulator::accumulate);
        } catch (SseException e) {
            Map<String, Object> result = providerError(e);
            if (result != null) return result;
            throw e;
        }
        Response response = accumulator.response();
        return OpenAiShapes.responseResult(asTree(response));
    }
}
