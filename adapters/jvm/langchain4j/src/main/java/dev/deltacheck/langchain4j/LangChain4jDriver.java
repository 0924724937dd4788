package dev.deltacheck.langchain4j;

import dev.deltacheck.driver.Driver;
import dev.deltacheck.driver.Replay;
import dev.deltacheck.driver.Results;
import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.model.chat.response.ChatResponse;
import dev.langchain4j.model.chat.response.StreamingChatResponseHandler;
import dev.langchain4j.model.openai.OpenAiStreamingChatModel;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * deltacheck driver for LangChain4j's OpenAI streaming model (dev.langchain4j:langchain4j-open-ai).
 *
 * <p>{@code OpenAiStreamingChatModel.chat(request, handler)}: the ChatResponse LangChain4j hands to
 * {@code onCompleteResponse} is the assembled result. The model's base URL is a loopback server
 * answering with the fixture's SSE bytes, so LangChain4j's own HTTP client and SSE parsing run. Its
 * AiMessage is read as it is: text, thinking (returnThinking is on, so reasoning_content is kept),
 * tool execution requests (id, name, arguments). An error chunk is not an error to LangChain4j: each data
 * line is parsed into its ChatCompletionResponse (dev.langchain4j.model.openai.internal.chat), which has no
 * error field, so the chunk adds nothing and the stream ends through onCompleteResponse with the text so far;
 * the result's error is therefore null (`error` is declared: the silent loss is judged, CONTRACT.md 4.2).
 */
public final class LangChain4jDriver {
    private static final long STREAM_LIMIT_SECONDS = 8;
    private static Replay replay;
    private static OpenAiStreamingChatModel model;

    public static void main(String[] args) throws Exception {
        Driver.claimStdout();
        replay = Replay.start();
        model = OpenAiStreamingChatModel.builder().baseUrl(replay.baseUrl() + "/v1").apiKey(Replay.API_KEY)
                .modelName("gpt-4o").returnThinking(true).timeout(Duration.ofSeconds(8)).build();
        String version = Results.loadedVersion(OpenAiStreamingChatModel.class, "langchain4j-open-ai");
        Driver.serve(args, "langchain4j-open-ai", version,
                new Driver.Mode(
                        "chat",
                        "langchain4j-openai-chat",
                        "openai-chat",
                        List.of("reasoning", "error", "message_extra_content"),
                        "LangChain4j OpenAiStreamingChatModel.chat(ChatRequest, StreamingChatResponseHandler), the ChatResponse "
                                + "given to onCompleteResponse; the model's base URL is a loopback server answering with the SSE "
                                + "bytes, so LangChain4j's own HTTP client and SSE parsing run",
                        Map.of(
                                "finish_reason", "LangChain4j maps finish_reason onto its own FinishReason enum (tool_calls and "
                                        + "function_call both become TOOL_EXECUTION, an unknown value OTHER), so the provider's value "
                                        + "cannot be read back",
                                "refusal", "LangChain4j parses a chunk delta into its Delta class, which has no refusal field, so delta.refusal never reaches the AiMessage",
                                "usage", "OpenAiTokenUsage keeps input, output and total counts and two detail counts, not the "
                                        + "provider's usage object, so the streamed usage cannot be read back",
                                "multiple_choices", "the streaming response builder assembles one AiMessage; ChatResponse has no choices",
                                "events", "onCompleteToolCall carries no position in the stream, so a completion's after_chunk "
                                        + "(CONTRACT.md 3.4) cannot be given",
                                "flags", "a ToolExecutionRequest is (id, name, arguments text): nothing marks arguments that do not parse",
                                "extra_content", "a ToolExecutionRequest is (id, name, arguments text): it has no field for a call's "
                                        + "provider extension"),
                        LangChain4jDriver::run));
    }

    private static Map<String, Object> run(Map<String, Object> request) throws Exception {
        replay.serve(request);
        CompletableFuture<ChatResponse> done = new CompletableFuture<>();
        model.chat(ChatRequest.builder().messages(UserMessage.from("deltacheck")).build(), new StreamingChatResponseHandler() {
            @Override
            public void onPartialResponse(String partialResponse) {
            }

            @Override
            public void onCompleteResponse(ChatResponse response) {
                done.complete(response);
            }

            @Override
            public void onError(Throwable error) {
                done.completeExceptionally(error);
            }
        });
        ChatResponse response;
        try {
            response = done.get(STREAM_LIMIT_SECONDS, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            throw e.getCause() instanceof Exception ? (Exception) e.getCause() : e;
        } catch (TimeoutException e) {
            throw new IllegalStateException("OpenAiStreamingChatModel called neither onCompleteResponse nor onError within "
                    + STREAM_LIMIT_SECONDS + " s after the whole stream was served");
        }
        AiMessage message = response.aiMessage();
        List<Object> parts = new ArrayList<>();
        if (message.thinking() != null) parts.add(Results.reasoningPart(message.thinking(), null, null));
        // The message's own extension object: AiMessage.attributes() is where LangChain4j keeps a message's provider fields.
        Object extension = message.attributes() == null ? null : message.attributes().get("extra_content");
        if (message.text() != null || extension != null) {  // "" too: the comparator omits an empty part
            Map<String, Object> text = Results.textPart(message.text() != null ? message.text() : "", null);
            if (extension != null) text.put("extra_content", extension);
            parts.add(text);
        }
        if (message.toolExecutionRequests() != null) {
            for (ToolExecutionRequest call : message.toolExecutionRequests()) {
                parts.add(Results.toolCallPart("function", call.id(), null, call.name(), call.arguments()));
            }
        }
        List<Object> choices = new ArrayList<>();
        choices.add(Results.choice(0, parts, null, null));
        return Results.result(choices, null, null);
    }
}
