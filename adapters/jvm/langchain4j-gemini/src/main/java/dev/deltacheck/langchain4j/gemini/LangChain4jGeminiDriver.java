package dev.deltacheck.langchain4j.gemini;

import dev.deltacheck.driver.Driver;
import dev.deltacheck.driver.Replay;
import dev.deltacheck.driver.Results;
import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.model.chat.response.ChatResponse;
import dev.langchain4j.model.chat.response.StreamingChatResponseHandler;
import dev.langchain4j.model.googleai.DeltacheckReplayedSignatures;
import dev.langchain4j.model.googleai.GoogleAiGeminiStreamingChatModel;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * deltacheck driver for LangChain4j's Gemini streaming model (dev.langchain4j:langchain4j-google-ai-gemini).
 *
 * <p>{@code GoogleAiGeminiStreamingChatModel.chat(request, handler)}: the ChatResponse LangChain4j hands to
 * {@code onCompleteResponse} is the assembled result (GeminiStreamingResponseBuilder appends each chunk's
 * first candidate). The model's base URL is a loopback server answering
 * {@code POST /v1beta/models/{model}:streamGenerateContent?alt=sse} with the fixture's SSE bytes, so
 * LangChain4j's own HTTP client and SSE parsing run. Its AiMessage is read as it is: thinking (returnThinking
 * is on, so thought parts are kept apart), text, tool execution requests (id, name, arguments).
 *
 * <p>Thought signatures: LangChain4j keeps them as one message attribute, not on a part, so a part's
 * signature is where LangChain4j's own request mapping puts it when the message is sent back to Gemini
 * (sendThinking on): DeltacheckReplayedSignatures reads it from that mapping. In 1.19.0 that is the first
 * function call only; a signature a text or thought part carried is never sent back, so it is reported lost.
 *
 * <p>An error chunk is not an error to LangChain4j: each data line is parsed into its
 * GeminiGenerateContentResponse, which has no error field, so the chunk adds nothing and the stream ends
 * through onCompleteResponse; the result's error is therefore null (`error` is declared: the silent loss is
 * judged, CONTRACT.md 4.2).
 */
public final class LangChain4jGeminiDriver {
    private static final long STREAM_LIMIT_SECONDS = 8;
    private static Replay replay;
    private static GoogleAiGeminiStreamingChatModel model;

    public static void main(String[] args) throws Exception {
        Driver.claimStdout();
        replay = Replay.start();
        model = GoogleAiGeminiStreamingChatModel.builder().baseUrl(replay.baseUrl() + "/v1beta").apiKey(Replay.API_KEY)
                .modelName("gemini-2.5-flash").returnThinking(true).sendThinking(true).timeout(Duration.ofSeconds(8)).build();
        String version = Results.loadedVersion(GoogleAiGeminiStreamingChatModel.class, "langchain4j-google-ai-gemini");
        Driver.serve(args, "langchain4j-google-ai-gemini", version,
                new Driver.Mode(
                        "gemini",
                        "langchain4j-gemini",
                        "gemini",
                        List.of("reasoning", "reasoning_signature", "error"),
                        "LangChain4j GoogleAiGeminiStreamingChatModel.chat(ChatRequest, StreamingChatResponseHandler), the "
                                + "ChatResponse given to onCompleteResponse; the model's base URL is a loopback server answering "
                                + "with the SSE bytes, so LangChain4j's own HTTP client and SSE parsing run; a part's thought "
                                + "signature is where LangChain4j's request mapping puts the message's signature when it sends "
                                + "the message back",
                        Map.of(
                                "finish_reason", "LangChain4j maps finishReason onto its own FinishReason enum (SAFETY, "
                                        + "RECITATION and others become CONTENT_FILTER, MALFORMED_FUNCTION_CALL and "
                                        + "UNEXPECTED_TOOL_CALL become OTHER, any call makes it TOOL_EXECUTION), so the "
                                        + "provider's value cannot be read back",
                                "finish_detail", "GeminiCandidate (LangChain4j's response type) has no finishMessage field",
                                "usage", "GoogleAiGeminiTokenUsage keeps five counts under LangChain4j's own names (input, "
                                        + "output, total, cached, thoughts), not the provider's usageMetadata object",
                                "multiple_choices", "GeminiStreamingResponseBuilder reads only each chunk's first candidate; "
                                        + "ChatResponse has no choices",
                                "events", "onCompleteToolCall carries no position in the stream, so a completion's after_chunk "
                                        + "(CONTRACT.md 3.4) cannot be given",
                                "flags", "a ToolExecutionRequest is (id, name, arguments text): nothing marks a call that cannot "
                                        + "be executed"),
                        LangChain4jGeminiDriver::run));
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
            throw new IllegalStateException("GoogleAiGeminiStreamingChatModel called neither onCompleteResponse nor onError "
                    + "within " + STREAM_LIMIT_SECONDS + " s after the whole stream was served");
        }
        AiMessage message = response.aiMessage();
        DeltacheckReplayedSignatures signatures = DeltacheckReplayedSignatures.of(message);
        List<Object> parts = new ArrayList<>();
        if (message.thinking() != null) parts.add(Results.reasoningPart(message.thinking(), null, signatures.thought));
        if (message.text() != null) parts.add(signed(Results.textPart(message.text(), null), signatures.text));
        List<ToolExecutionRequest> calls = message.toolExecutionRequests() == null ? List.of() : message.toolExecutionRequests();
        for (int i = 0; i < calls.size(); i++) {
            ToolExecutionRequest call = calls.get(i);
            String signature = i < signatures.calls.size() ? signatures.calls.get(i) : null;
            parts.add(signed(Results.toolCallPart("function", call.id(), null, call.name(), call.arguments()), signature));
        }
        List<Object> choices = new ArrayList<>();
        choices.add(Results.choice(0, parts, null, null));
        return Results.result(choices, null, null);
    }

    /** A text or tool-call part with the thoughtSignature LangChain4j sends back on it (CONTRACT.md 3.1, gemini). */
    private static Map<String, Object> signed(Map<String, Object> part, String signature) {
        part.put("signature", signature);
        return part;
    }
}
