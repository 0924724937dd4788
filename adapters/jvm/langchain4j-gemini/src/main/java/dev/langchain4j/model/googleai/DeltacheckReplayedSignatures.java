package dev.langchain4j.model.googleai;

import dev.langchain4j.data.message.AiMessage;

import java.util.ArrayList;
import java.util.List;

/**
 * Where LangChain4j puts the thought signatures of an assembled AiMessage. It keeps them as one message
 * attribute (`thinking_signature`: each chunk's signatures joined with "\n\n", the last chunk that had
 * any winning), not on a part; only its own request mapping decides which part carries them when the
 * message goes back to Gemini. This class sits in LangChain4j's package to call that package-private
 * mapping (PartsAndContentsMapper.fromMessageToGContent, sendThinking on as the driver's model has it)
 * and reads the thoughtSignature of each part it builds.
 */
public final class DeltacheckReplayedSignatures {
    /** The signature of the thought part, of the text part, and of each functionCall part in order (null: none). */
    public final String thought;
    public final String text;
    public final List<String> calls = new ArrayList<>();

    private DeltacheckReplayedSignatures(String thought, String text) {
        this.thought = thought;
        this.text = text;
    }

    public static DeltacheckReplayedSignatures of(AiMessage message) {
        String thought = null;
        String text = null;
        List<String> calls = new ArrayList<>();
        for (GeminiContent content : PartsAndContentsMapper.fromMessageToGContent(List.of(message), null, true)) {
            for (GeminiContent.GeminiPart part : content.parts()) {
                if (part.functionCall() != null) {
                    calls.add(part.thoughtSignature());
                } else if (Boolean.TRUE.equals(part.thought())) {
                    thought = part.thoughtSignature();
                } else if (part.text() != null) {
                    text = part.thoughtSignature();
                }
            }
        }
        DeltacheckReplayedSignatures signatures = new DeltacheckReplayedSignatures(thought, text);
        signatures.calls.addAll(calls);
        return signatures;
    }
}
