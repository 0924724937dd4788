package dev.deltacheck.driver;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The canonical result read from an assembled OpenAI object written as JSON by the library itself
 * (a ChatCompletion, a Response), for drivers of libraries whose final object has the provider's
 * shape. Nothing is repaired here: a field the library left out is left out.
 */
public final class OpenAiShapes {
    private OpenAiShapes() {
    }

    /** One canonical choice from a ChatCompletion choice: reasoning, text, refusal, then tool calls (CONTRACT.md 3.2). */
    @SuppressWarnings("unchecked")
    public static Map<String, Object> chatChoice(Map<String, Object> choice) {
        Map<String, Object> message = (Map<String, Object>) choice.getOrDefault("message", Map.of());
        List<Object> parts = new ArrayList<>();
        List<String> reasoning = new ArrayList<>();
        for (String key : List.of("reasoning_content", "reasoning")) {
            Object value = message.get(key);
            if (value instanceof String && !reasoning.contains(value)) reasoning.add((String) value);
        }
        for (String text : reasoning) parts.add(Results.reasoningPart(text, null, null));
        // The message's own extension object, where the library wrote the provider's unknown delta fields.
        Object extension = message.get("extra_content");
        if (message.get("content") instanceof String || extension != null) {  // "" too: the comparator omits an empty part
            Object content = message.get("content");
            Map<String, Object> text = Results.textPart(content instanceof String ? (String) content : "", null);
            if (extension != null) text.put("extra_content", extension);
            parts.add(text);
        }
        if (message.get("refusal") instanceof String) {
            parts.add(Results.refusalPart((String) message.get("refusal")));
        }
        Object calls = message.get("tool_calls");
        if (calls instanceof List) {
            for (Object item : (List<Object>) calls) {
                Map<String, Object> call = (Map<String, Object>) item;
                Map<String, Object> function = (Map<String, Object>) call.getOrDefault("function", Map.of());
                Map<String, Object> part = Results.toolCallPart("function", (String) call.get("id"), null,
                        (String) function.get("name"), argumentsText(function.get("arguments")));
                // The call's extension object, where the library wrote the provider's unknown tool-call fields.
                if (call.get("extra_content") != null) part.put("extra_content", call.get("extra_content"));
                parts.add(part);
            }
        }
        Object legacy = message.get("function_call");
        if (legacy instanceof Map) {
            Map<String, Object> function = (Map<String, Object>) legacy;
            parts.add(Results.toolCallPart("function", null, null, (String) function.get("name"), argumentsText(function.get("arguments"))));
        }
        return Results.choice(((Number) choice.get("index")).longValue(), parts, (String) choice.get("finish_reason"), null);
    }

    /** The parts of a Response's output, item by item (CONTRACT.md 3.1). */
    @SuppressWarnings("unchecked")
    public static List<Object> responseParts(List<Object> output) {
        List<Object> parts = new ArrayList<>();
        for (Object entry : output) {
            if (!(entry instanceof Map)) continue;
            Map<String, Object> item = (Map<String, Object>) entry;
            Object type = item.get("type");
            if ("message".equals(type)) {
                for (Object c : (List<Object>) item.getOrDefault("content", List.of())) {
                    Map<String, Object> content = (Map<String, Object>) c;
                    if ("output_text".equals(content.get("type"))) {
                        parts.add(Results.textPart((String) content.get("text"), (List<Object>) content.getOrDefault("annotations", List.of())));
                    } else if ("refusal".equals(content.get("type"))) {
                        parts.add(Results.refusalPart((String) content.get("refusal")));
                    }
                }
            } else if ("reasoning".equals(type)) {
                StringBuilder text = new StringBuilder();
                for (Object c : (List<Object>) item.getOrDefault("content", List.of())) {
                    Map<String, Object> content = (Map<String, Object>) c;
                    if ("reasoning_text".equals(content.get("type"))) text.append((String) content.get("text"));
                }
                List<Object> summary = new ArrayList<>();
                for (Object s : (List<Object>) item.getOrDefault("summary", List.of())) summary.add(((Map<String, Object>) s).get("text"));
                parts.add(Results.reasoningPart(text.toString(), summary, (String) item.get("encrypted_content")));
            } else if ("function_call".equals(type)) {
                parts.add(Results.toolCallPart("function", (String) item.get("call_id"), (String) item.get("id"),
                        (String) item.get("name"), argumentsText(item.get("arguments"))));
            } else if ("custom_tool_call".equals(type)) {
                parts.add(Results.toolCallPart("custom", (String) item.get("call_id"), (String) item.get("id"),
                        (String) item.get("name"), argumentsText(item.get("input"))));
            } else {
                Map<String, Object> call = builtinCall(item);
                if (call != null) parts.add(call);
            }
        }
        return parts;
    }

    /**
     * A built-in call the client carries out or answers (CONTRACT.md 3.3 openai-responses rule 7), from the item
     * as the library wrote it: apply_patch_call.operation, local_shell_call.action, shell_call.action (its
     * environment says whether the API ran it in a container), tool_search_call.arguments (with its execution),
     * mcp_approval_request's server_label, name and arguments. Null for any other item.
     */
    @SuppressWarnings("unchecked")
    private static Map<String, Object> builtinCall(Map<String, Object> item) {
        String type = String.valueOf(item.get("type"));
        Object payload;
        switch (type) {
            case "apply_patch_call":
                payload = item.get("operation");
                break;
            case "local_shell_call":
                payload = item.get("action");
                break;
            case "shell_call": {
                Object environment = item.get("environment");
                if (environment instanceof Map && !"local".equals(((Map<String, Object>) environment).get("type"))) {
                    return null; // run by the API in a hosted container
                }
                payload = item.get("action");
                break;
            }
            case "tool_search_call":
                if (!"client".equals(item.get("execution"))) return null; // executed by the server
                payload = item.get("arguments");
                break;
            case "mcp_approval_request": {
                Map<String, Object> request = new java.util.LinkedHashMap<>();
                for (String key : List.of("server_label", "name", "arguments")) request.put(key, item.get(key));
                payload = request;
                break;
            }
            default:
                return null;
        }
        Object answer = "mcp_approval_request".equals(type) ? item.get("id") : item.get("call_id");
        return Results.toolCallPart("builtin", (String) answer, (String) item.get("id"), type, argumentsText(payload));
    }

    /** The canonical result of a terminal Response: one choice, its status, usage and error. */
    @SuppressWarnings("unchecked")
    public static Map<String, Object> responseResult(Map<String, Object> response) {
        Object output = response.get("output");
        Map<String, Object> incomplete = (Map<String, Object>) response.get("incomplete_details");
        Map<String, Object> choice = Results.choice(0, responseParts(output instanceof List ? (List<Object>) output : List.of()),
                (String) response.get("status"), incomplete == null ? null : (String) incomplete.get("reason"));
        Map<String, Object> failure = (Map<String, Object>) response.get("error");
        Map<String, Object> error = null;
        if (failure != null) {
            Object type = failure.get("type") != null ? failure.get("type") : failure.get("code");
            error = Results.error(type, failure.get("message"));
        }
        return Results.result(new ArrayList<>(List.of(choice)), response.get("usage"), error);
    }

    /** Arguments as the canonical JSON text: text passes as is, a parsed value is written as JSON. */
    public static String argumentsText(Object value) {
        if (value == null || value instanceof String) return (String) value;
        return Json.write(value);
    }
}
