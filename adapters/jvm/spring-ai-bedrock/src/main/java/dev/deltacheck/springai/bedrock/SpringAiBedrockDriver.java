package dev.deltacheck.springai.bedrock;

import dev.deltacheck.driver.Driver;
import dev.deltacheck.driver.Replay;
import dev.deltacheck.driver.Results;
import org.springframework.ai.bedrock.converse.BedrockChatOptions;
import org.springframework.ai.bedrock.converse.BedrockProxyChatModel;
import org.springframework.ai.chat.messages.AssistantMessage;
import org.springframework.ai.chat.model.ChatResponse;
import org.springframework.ai.chat.model.Generation;
import org.springframework.ai.chat.model.MessageAggregator;
import org.springframework.ai.chat.prompt.Prompt;
import reactor.core.publisher.Hooks;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.SdkBytes;
import software.amazon.awssdk.core.SdkField;
import software.amazon.awssdk.core.SdkPojo;
import software.amazon.awssdk.core.document.Document;
import software.amazon.awssdk.core.util.SdkAutoConstructList;
import software.amazon.awssdk.core.util.SdkAutoConstructMap;
import software.amazon.awssdk.http.Protocol;
import software.amazon.awssdk.http.nio.netty.NettyNioAsyncHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.bedrockruntime.BedrockRuntimeAsyncClient;
import software.amazon.awssdk.services.bedrockruntime.BedrockRuntimeClient;
import software.amazon.awssdk.services.bedrockruntime.model.TokenUsage;

import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;

/**
 * deltacheck driver for Spring AI's Amazon Bedrock Converse chat model
 * (org.springframework.ai:spring-ai-bedrock-converse).
 *
 * <p>{@code BedrockProxyChatModel.stream(prompt)} (the AWS SDK for Java v2's {@code BedrockRuntimeAsyncClient.converseStream},
 * its events visited by Spring AI's ConverseChatResponseStream), aggregated by Spring AI's own {@code MessageAggregator},
 * the aggregation stream() itself applies to report the response to its observation. The async client is the one
 * Spring AI's builder takes ({@code bedrockRuntimeAsyncClient}): region us-east-1, dummy static credentials (requests
 * are SigV4-signed as usual), its endpoint overridden to a loopback server answering
 * {@code POST /model/{modelId}/converse-stream} with the fixture's event-stream bytes, so the SDK's own HTTP client
 * (Netty, over HTTP/1.1: the SDK's default for this service is HTTP/2 with prior knowledge, which the JDK's loopback
 * server does not speak; ConverseStream works over either) and event-stream decoder run. Internal tool execution is off, as for a caller that runs the tools itself:
 * the tool calls are the response's.
 *
 * <p>Spring AI's representation, read as it is: the text is the aggregated message text (every text delta of every
 * block, joined); tool calls are AssistantMessage.ToolCall (id, name, arguments), which ConverseChatResponseStream
 * emits at the {@code metadata} event, with the finish reason it holds then (the {@code messageStop} stopReason as
 * sent, if that came first; none if the stream had no {@code metadata}). The message holds no reasoning, signature or citation: 1.1.8's stream maps only text and
 * toolUse deltas, so none is reported. Usage is the native usage (the SDK's TokenUsage, written from its own field
 * model under the wire names) of the last ChatResponse stream() emitted. An exception or error message makes the SDK
 * fail the Flux, and nothing is aggregated: its exception is the driver's error.
 */
public final class SpringAiBedrockDriver {
    // Below the harness's per-fixture timeout, so a Flux that never ends is reported, not killed.
    private static final Duration STREAM_LIMIT = Duration.ofSeconds(8);
    private static final String MODEL_ID = "anthropic.claude-sonnet-4-20250514-v1:0";
    private static Replay replay;
    private static BedrockProxyChatModel model;

    public static void main(String[] args) throws Exception {
        Driver.claimStdout();
        replay = Replay.start();
        // Spring AI's builder looks the region up before it is given one, and logs a warning when none is configured.
        System.setProperty("aws.region", "us-east-1");
        StaticCredentialsProvider credentials = StaticCredentialsProvider.create(AwsBasicCredentials.create("test", "test"));
        URI endpoint = URI.create(replay.baseUrl());
        // The SDK makes HTTP/2 the async client's default for this service (prior knowledge, over cleartext to a
        // loopback endpoint), which the JDK's loopback server does not speak; ConverseStream works over HTTP/1.1, and
        // the Netty client Spring AI's own builder uses is told so.
        BedrockRuntimeAsyncClient client = BedrockRuntimeAsyncClient.builder().region(Region.US_EAST_1)
                .credentialsProvider(credentials).endpointOverride(endpoint)
                .httpClientBuilder(NettyNioAsyncHttpClient.builder().protocol(Protocol.HTTP1_1)).build();
        // The blocking client serves call(), never used here; built the same way so nothing reaches out.
        BedrockRuntimeClient blockingClient = BedrockRuntimeClient.builder().region(Region.US_EAST_1)
                .credentialsProvider(credentials).endpointOverride(endpoint).build();
        model = BedrockProxyChatModel.builder().region(Region.US_EAST_1).credentialsProvider(credentials)
                .bedrockRuntimeAsyncClient(client).bedrockRuntimeClient(blockingClient)
                .defaultOptions(BedrockChatOptions.builder().model(MODEL_ID).internalToolExecutionEnabled(false).build())
                .build();
        String version = Results.loadedVersion(BedrockProxyChatModel.class, "spring-ai-bedrock-converse");
        Driver.serve(args, "spring-ai-bedrock-converse", version,
                new Driver.Mode(
                        "bedrock",
                        "spring-ai-bedrock",
                        "bedrock-converse",
                        List.of("reasoning", "reasoning_signature", "annotations", "finish_reason", "usage", "error"),
                        "Spring AI BedrockProxyChatModel.stream(prompt) (the AWS SDK for Java v2's BedrockRuntimeAsyncClient."
                                + "converseStream, events visited by ConverseChatResponseStream), aggregated by Spring AI's "
                                + "MessageAggregator; the async client's endpoint is a loopback server answering with the "
                                + "event-stream bytes, so the SDK's own HTTP client and event-stream decoding run",
                        Map.of(
                                "server_tools", "an AssistantMessage.ToolCall is (id, type, name, arguments) and "
                                        + "StreamingToolCallBuilder always gives the type \"function\": nothing tells a call the "
                                        + "API ran from one the client must run, and a toolResult block has no place",
                                "events", "BedrockProxyChatModel.stream() emits ChatResponses, no tool-call completion events",
                                "flags", "an AssistantMessage.ToolCall is (id, type, name, arguments text): nothing marks a "
                                        + "call that cannot be executed"),
                        SpringAiBedrockDriver::run));
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
            throw new IllegalStateException("BedrockProxyChatModel.stream() neither completed nor failed within "
                    + STREAM_LIMIT.toSeconds() + " s after the whole stream was served"
                    + (dropped.get() == null ? "" : "; the error Reactor saw: " + dropped.get()), dropped.get());
        }
        ChatResponse response = aggregated.get();
        List<Object> choices = new ArrayList<>();
        if (response != null && response.getResult() != null) choices.add(choice(response.getResult()));
        return Results.result(choices, usage.get(), null);
    }

    /**
     * The usage a ChatResponse of stream() carries, the last one being the stream's: ConverseChatResponseStream gives
     * each a DefaultUsage whose native usage is the metadata event's TokenUsage as the SDK parsed it (none before that
     * event). The aggregated response keeps only counts (MessageAggregator's own DefaultUsage), so the responses are
     * read here.
     */
    private static void keepUsage(ChatResponse response, AtomicReference<Object> usage) {
        Object nativeUsage = response.getMetadata() == null || response.getMetadata().getUsage() == null
                ? null : response.getMetadata().getUsage().getNativeUsage();
        if (nativeUsage instanceof TokenUsage) usage.set(wireJson(nativeUsage));
    }

    private static Map<String, Object> choice(Generation generation) {
        AssistantMessage message = generation.getOutput();
        List<Object> parts = new ArrayList<>();
        String text = message.getText();
        if (text != null) parts.add(Results.textPart(text, null));  // "" too: the comparator omits an empty part
        for (AssistantMessage.ToolCall call : message.getToolCalls()) {
            parts.add(Results.toolCallPart("function", call.id(), null, call.name(), call.arguments()));
        }
        String finish = generation.getMetadata() == null ? null : generation.getMetadata().getFinishReason();
        return Results.choice(0, parts, finish, null);
    }

    /**
     * An SDK model object as JSON under its wire names, from the SDK's own field model (SdkPojo.sdkFields()): the
     * SDK keeps what it parsed and nothing else, so a member its model lacks is not there.
     */
    private static Object wireJson(Object value) {
        if (value instanceof SdkPojo) {
            SdkPojo pojo = (SdkPojo) value;
            Map<String, Object> out = new TreeMap<>();
            for (SdkField<?> field : pojo.sdkFields()) {
                Object member = field.getValueOrDefault(pojo);
                // An absent list or map member reads as the SDK's auto-construct placeholder, not as a value sent.
                if (member == null || member instanceof SdkAutoConstructList || member instanceof SdkAutoConstructMap) continue;
                out.put(field.locationName(), wireJson(member));
            }
            return out;
        }
        if (value instanceof List) {
            List<Object> out = new ArrayList<>();
            for (Object item : (List<?>) value) out.add(wireJson(item));
            return out;
        }
        if (value instanceof Map) {
            Map<String, Object> out = new TreeMap<>();
            for (Map.Entry<?, ?> entry : ((Map<?, ?>) value).entrySet()) out.put(String.valueOf(entry.getKey()), wireJson(entry.getValue()));
            return out;
        }
        if (value instanceof Integer || value instanceof Short) return ((Number) value).longValue();
        if (value instanceof SdkBytes) return java.util.Base64.getEncoder().encodeToString(((SdkBytes) value).asByteArray());
        if (value instanceof Document) return ((Document) value).isNull() ? null : wireJson(((Document) value).unwrap());
        return value;
    }
}
