package dev.braintrust.instrumentation.springai.v1_0_0;

import dev.deltacheck.driver.Driver;
import dev.deltacheck.driver.Json;
import dev.deltacheck.driver.OpenAiShapes;
import dev.deltacheck.driver.Results;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * deltacheck driver for the Braintrust Java SDK's Spring AI instrumentation (dev.braintrust:braintrust-sdk-java).
 *
 * <p>The code under test exists only below the HTTP layer: the instrumentation's WebClient filter
 * collects a streamed response body as text and hands it to the package-private
 * {@code BraintrustSpringAI.reassembleSSEResponse(rawSSE, span, streamContext)}, which rebuilds the
 * ChatCompletion it logs on the span. This driver sits in that package and calls it directly with the
 * fixture's SSE text (no span, no stream context: the OpenAI path, as for every non-Anthropic
 * provider), then reads the JSON it returns like a ChatCompletion.
 *
 * <p>The only release of the SDK Maven Central serves here is 0.3.6. BraintrustSpringAI.java is the
 * same file in 0.3.6 and 0.3.13 (the release the seed report inspects), so the reassembly is the one
 * the report is about.
 */
public final class DeltacheckBraintrustDriver {
    public static void main(String[] args) throws Exception {
        Driver.claimStdout();
        String version = Results.loadedVersion(BraintrustSpringAI.class, "braintrust-sdk-java");
        Driver.serve(args, "braintrust-sdk-java", version,
                new Driver.Mode(
                        "chat",
                        "braintrust-java-springai-sse",
                        "openai-chat",
                        List.of("refusal", "reasoning", "finish_reason", "usage", "multiple_choices", "extra_content",
                                "message_extra_content"),
                        "Braintrust Java SDK Spring AI instrumentation: BraintrustSpringAI.reassembleSSEResponse(rawSSE, null, null) "
                                + "(the OpenAI SSE reassembly its WebClient filter runs on a streamed body) called directly with the "
                                + "SSE text, its JSON read as a ChatCompletion; it exists only below the HTTP layer",
                        Map.of(
                                "error", "the reassembled object is a ChatCompletion, which has no error field: a chunk carrying "
                                        + "an error and no choices contributes nothing to it",
                                "events", "the reassembly runs once over the whole body and emits no tool-call completion events",
                                "flags", "the reassembled ChatCompletion keeps a call's arguments as text; nothing marks them unparsable"),
                        DeltacheckBraintrustDriver::run));
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> run(Map<String, Object> request) {
        String reassembled = BraintrustSpringAI.reassembleSSEResponse((String) request.get("sse"), null, null);
        Map<String, Object> completion = (Map<String, Object>) Json.parse(reassembled);
        List<Object> choices = new ArrayList<>();
        for (Object choice : (List<Object>) completion.getOrDefault("choices", List.of())) {
            choices.add(OpenAiShapes.chatChoice((Map<String, Object>) choice));
        }
        return Results.result(choices, completion.get("usage"), null);
    }
}
