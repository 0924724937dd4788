package common

// The canonical result's pieces (CONTRACT.md 3).

func TextPart(text string) map[string]any {
	return map[string]any{"type": "text", "text": text, "annotations": []any{}}
}

func RefusalPart(text string) map[string]any {
	return map[string]any{"type": "refusal", "text": text}
}

func ReasoningPart(text string) map[string]any {
	return map[string]any{"type": "reasoning", "text": text, "summary": []any{}, "signature": nil}
}

func ToolCallPart(kind string, id, itemID any, name any, arguments string) map[string]any {
	return map[string]any{"type": "tool_call", "kind": kind, "id": id, "item_id": itemID, "name": name, "arguments": arguments}
}
