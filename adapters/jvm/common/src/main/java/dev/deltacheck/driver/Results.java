package dev.deltacheck.driver;

import java.net.URISyntaxException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The canonical result's pieces (CONTRACT.md 3) and the version of the library a driver loaded. */
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

    /**
     * The stream's error as the library holds it: a numeric type stays a number (CONTRACT.md 4 compares it as
     * its text), and a message the library does not hold as text is passed on as it is, never made into one.
     */
    public static Map<String, Object> error(Object type, Object message) {
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
}
