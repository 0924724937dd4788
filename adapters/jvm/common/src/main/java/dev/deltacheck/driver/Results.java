package dev.deltacheck.driver;

import java.net.URISyntaxException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** The canonical result's pieces (CONTRACT.md 3) and what every JVM driver says about capabilities. */
public final class Results {
    private Results() {
    }

    public static Map<String, Object> textPart(String text, List<Object> annotations) {
        Map<String, Object> part = new LinkedHashMap<>();
        part.put("type", "text");
        part.put("text", text);
        part.put("annotations", annotations == null ? new ArrayList<>() : annotations);
        return part;
    }

    public static Map<String, Object> refusalPart(String text) {
        Map<String, Object> part = new LinkedHashMap<>();
        part.put("type", "refusal");
        part.put("text", text);
        return part;
    }

    public static Map<String, Object> reasoningPart(String text, List<Object> summary, String signature) {
        Map<String, Object> part = new LinkedHashMap<>();
        part.put("type", "reasoning");
        part.put("text", text);
        part.put("summary", summary == null ? new ArrayList<>() : summary);
        part.put("signature", signature);
        return part;
    }

    public static Map<String, Object> toolCallPart(String kind, String id, String itemId, String name, String arguments) {
        Map<String, Object> part = new LinkedHashMap<>();
        part.put("type", "tool_call");
        part.put("kind", kind);
        part.put("id", id);
        part.put("item_id", itemId);
        part.put("name", name);
        part.put("arguments", arguments);
        return part;
    }

    public static Map<String, Object> choice(long index, List<Object> parts, String finishReason, String finishDetail) {
        Map<String, Object> choice = new LinkedHashMap<>();
        choice.put("index", index);
        choice.put("parts", parts);
        choice.put("finish_reason", finishReason);
        choice.put("finish_detail", finishDetail);
        return choice;
    }

    public static Map<String, Object> result(List<Object> choices, Object usage, Map<String, Object> error) {
        Map<String, Object> result = new LinkedHashMap<>();
        result.put("choices", choices);
        result.put("usage", usage);
        result.put("error", error);
        return result;
    }

    public static Map<String, Object> error(String type, String message) {
        Map<String, Object> error = new LinkedHashMap<>();
        error.put("type", type);
        error.put("message", message);
        return error;
    }

    /** A JSON text the library gave, parsed into a tree (usage objects are passed on as the library holds them). */
    public static Object jsonTree(String json) {
        return Json.parse(json);
    }

    /**
     * The version of the library jar a class was loaded from, read from the jar's file name
     * (`artifactId-VERSION.jar`, as Maven resolved it into target/lib): the version actually loaded.
     */
    public static String loadedVersion(Class<?> libraryClass, String artifactId) {
        try {
            String file = Path.of(libraryClass.getProtectionDomain().getCodeSource().getLocation().toURI()).getFileName().toString();
            String prefix = artifactId + "-";
            if (file.startsWith(prefix) && file.endsWith(".jar")) return file.substring(prefix.length(), file.length() - 4);
            throw new IllegalStateException(libraryClass.getName() + " was loaded from " + file + ", not from " + artifactId);
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    // Why a capability is absent for every adapter of one protocol: the same sentences as
    // harness/adapter.py PROTOCOL_NOTES.
    private static final Map<String, Map<String, String>> PROTOCOL_NOTES = Map.of(
            "openai-chat", Map.of(
                    "annotations", "the contract defines no Chat Completions annotations (they are tested on Responses and Anthropic)",
                    "custom_tools", "custom tool calls are a Responses item type; a Chat Completions stream has none",
                    "item_id", "item ids belong to Responses output items; Chat Completions tool calls have none",
                    "server_tools", "server tool blocks are Anthropic Messages content; a Chat Completions stream has none",
                    "finish_detail", "Chat Completions has only finish_reason, no incomplete reason or stop_sequence",
                    "reasoning_signature", "Chat Completions reasoning deltas carry no signature or encrypted content"),
            "openai-responses", Map.of(
                    "server_tools", "server tool blocks are Anthropic Messages content; a Responses stream has none",
                    "multiple_choices", "a Responses stream has one output, no choices"));

    /** capability_notes: the protocol's reasons for the capabilities left out, then the library's own. */
    public static Map<String, String> protocolNotes(String protocol, List<String> capabilities, Map<String, String> libraryNotes) {
        Map<String, String> notes = new TreeMap<>();
        PROTOCOL_NOTES.getOrDefault(protocol, Map.of()).forEach((capability, why) -> {
            if (!capabilities.contains(capability)) notes.put(capability, why);
        });
        notes.putAll(libraryNotes);
        return notes;
    }
}
