package org.springframework.ai.google.genai;

import com.google.genai.types.Part;
import org.springframework.ai.chat.messages.AssistantMessage;

import java.util.ArrayList;
import java.util.List;

/**
 * The Gemini parts Spring AI builds from an assembled AssistantMessage when it sends the message back to
 * Gemini, written as JSON by the GenAI SDK itself (Part.toJson: a thoughtSignature is the base64 text of
 * its bytes, as on the wire). Spring AI keeps a response's thought signatures as one message metadata
 * list (`thoughtSignatures`), not on a part; only this package-private mapping
 * (GoogleGenAiChatModel.messageToGeminiParts) decides which part carries which signature, so this class
 * sits in Spring AI's package to call it.
 */
public final class DeltacheckReplayedParts {
    private DeltacheckReplayedParts() {
    }

    public static List<String> of(GoogleGenAiChatModel model, AssistantMessage message) {
        List<String> parts = new ArrayList<>();
        for (Part part : model.messageToGeminiParts(message)) parts.add(part.toJson());
        return parts;
    }
}
