package dev.deltacheck.langchain4j.bedrock;

import dev.deltacheck.driver.Driver;
import dev.deltacheck.driver.Replay;
import dev.deltacheck.driver.Results;
import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.model.bedrock.BedrockStreamingChatModel;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.model.chat.response.ChatResponse;
import dev.langchain4j.model.chat.response.StreamingChatResponseHandler;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.http.Protocol;
import software.amazon.awssdk.http.nio.netty.NettyNioAsyncHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.bedrockruntime.BedrockRuntimeAsyncClient;

import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * deltacheck driver for LangChain4j's Amazon Bedrock streaming model (dev.langchain4j:langchain4j-bedrock).
 *
 * <p>{@code BedrockStreamingChatModel.chat(request, handler)}: the ChatResponse LangChain4j hands to
 * {@code onCompleteResponse} is the assembled result (ConverseResponseFromStreamBuilder rebuilds a ConverseResponse from
 * the events, which LangChain4j's own aiMessageFrom reads). The model is given the AWS SDK for Java v2's
 * {@code BedrockRuntimeAsyncClient} (its builder's {@code client}): region us-east-1, dummy static credentials (requests
 * are SigV4-signed as usual), its endpoint overridden to a loopback server answering
 * {@code POST /model/{modelId}/converse-stream} with the fixture's event-stream bytes, so the SDK's own HTTP client
 * (Netty, over HTTP/1.1: the SDK's default for this service is HTTP/2 with prior knowledge, which the JDK's loopback
 * server does not speak; ConverseStream works over either) and event-stream decoder run.
 *
 * <p>Its AiMessage is read as it is: thinking (returnThinking is on) with the signature LangChain4j keeps as the message
 * attribute {@code thinking_signature}, text, tool execution requests (id, name, arguments), in the order LangChain4j
 * builds the message's content (reasoning, text, tool uses). LangChain4j calls onCompleteResponse at the stream's
 * {@code metadata} event and nowhere else, and onError for an exception or error message; a stream that ends without
 * either is reported a while after its last byte was served, not after the full wait.
 */
public final class LangChain4jBedrockDriver {
    private static final long STREAM_LIMIT_MILLIS = 8_000;
    // How long after the whole body was served the driver still waits for the handler to be called.
    private static final long AFTER_BODY_MILLIS = 2_000;
    private static final String MODEL_ID = "anthropic.claude-sonnet-4-20250514-v1:0";
    private static final String THINKING_SIGNATURE = "thinking_signature";
    private static Replay replay;
    private static BedrockStreamingChatModel model;

    public static void main(String[] args) throws Exception {
        Driver.claimStdout();
        replay = Replay.start();
        // The SDK makes HTTP/2 the async client's default for this service (prior knowledge, over cleartext to a
        // loopback endpoint), which the JDK's loopback server does not speak; ConverseStream works over HTTP/1.1.
        BedrockRuntimeAsyncClient client = BedrockRuntimeAsyncClient.builder().region(Region.US_EAST_1)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("test", "test")))
                .endpointOverride(URI.create(replay.baseUrl()))
                .httpClientBuilder(NettyNioAsyncHttpClient.builder().protocol(Protocol.HTTP1_1)).build();
        model = BedrockStreamingChatModel.builder().client(client).region(Region.US_EAST_1).modelId(MODEL_ID)
                .returnThinking(true).build();
        String version = Results.loadedVersion(BedrockStreamingChatModel.class, "langchain4j-bedrock");
        Driver.serve(args, "langchain4j-bedrock", version,
                new Driver.Mode(
                        "bedrock",
                        "langchain4j-bedrock",
                        "bedrock-converse",
                        List.of("reasoning", "reasoning_signature", "error"),
                        "LangChain4j BedrockStreamingChatModel.chat(ChatRequest, StreamingChatResponseHandler) (the AWS SDK "
                                + "for Java v2's BedrockRuntimeAsyncClient.converseStream), the ChatResponse given to "
                                + "onCompleteResponse; the async client's endpoint is a loopback server answering with the "
                                + "event-stream bytes, so the SDK's own HTTP client and event-stream decoding run",
                        Map.of(
                                "finish_reason", "finishReasonFrom maps stopReason onto LangChain4j's own FinishReason enum "
                                        + "(end_turn and stop_sequence become STOP, guardrail_intervened and content_filtered "
                                        + "CONTENT_FILTER, and any other value throws), so the provider's value cannot be read back",
                                "usage", "tokenUsageFrom keeps four counts under LangChain4j's own names (BedrockTokenUsage: input, "
                                        + "output, cache read, cache write), not the provider's usage object",
                                "annotations", "an AiMessage is text, thinking, tool execution requests and attributes: "
                                        + "LangChain4j has no citation type, and ConverseResponseFromStreamBuilder reads no "
                                        + "citation delta",
                                "server_tools", "a ToolExecutionRequest is (id, name, arguments): nothing tells a call the API "
                                        + "ran from one the client must run, and a toolResult block has no place",
                                "events", "onCompleteToolCall carries no position in the stream, so a completion's after_chunk "
                                        + "(CONTRACT.md 3.4) cannot be given",
                                "flags", "a ToolExecutionRequest is (id, name, arguments text): nothing marks a call that cannot "
                                        + "be executed"),
                        LangChain4jBedrockDriver::run));
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
        AiMessage message = completed(done).aiMessage();
        List<Object> parts = new ArrayList<>();
        Object signature = message.attributes() == null ? null : message.attributes().get(THINKING_SIGNATURE);
        if (message.thinking() != null || signature != null) {
            parts.add(Results.reasoningPart(message.thinking() == null ? "" : message.thinking(), null, (String) signature));
        }
        if (message.text() != null) parts.add(Results.textPart(message.text(), null));
        List<ToolExecutionRequest> calls = message.toolExecutionRequests() == null ? List.of() : message.toolExecutionRequests();
        for (ToolExecutionRequest call : calls) {
            parts.add(Results.toolCallPart("function", call.id(), null, call.name(), call.arguments()));
        }
        List<Object> choices = new ArrayList<>();
        choices.add(Results.choice(0, parts, null, null));
        return Results.result(choices, null, null);
    }

    /** The ChatResponse given to onCompleteResponse, or the error given to onError; neither is an error of its own. */
    private static ChatResponse completed(CompletableFuture<ChatResponse> done) throws Exception {
        long waited = 0;
        while (true) {
            try {
                return done.get(100, TimeUnit.MILLISECONDS);
            } catch (ExecutionException e) {
                throw e.getCause() instanceof Exception ? (Exception) e.getCause() : e;
            } catch (TimeoutException e) {
                waited += 100;
                long sinceBody = replay.millisSinceBodyWritten();
                if (sinceBody >= AFTER_BODY_MILLIS || waited >= STREAM_LIMIT_MILLIS) {
                    throw new IllegalStateException("BedrockStreamingChatModel called neither onCompleteResponse nor onError "
                            + (sinceBody >= AFTER_BODY_MILLIS
                                    ? "within " + AFTER_BODY_MILLIS / 1000 + " s after the whole stream was served"
                                    : "within " + STREAM_LIMIT_MILLIS / 1000 + " s"));
                }
            }
        }
    }
}
