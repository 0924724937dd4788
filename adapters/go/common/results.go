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

// Why a capability is absent for every adapter of one protocol: the same sentences as
// harness/adapter.py PROTOCOL_NOTES.
var protocolNotes = map[string]map[string]string{
	"openai-chat": {
		"annotations":         "the contract defines no Chat Completions annotations (they are tested on Responses and Anthropic)",
		"custom_tools":        "custom tool calls are a Responses item type; a Chat Completions stream has none",
		"item_id":             "item ids belong to Responses output items; Chat Completions tool calls have none",
		"server_tools":        "server tool blocks are Anthropic Messages content; a Chat Completions stream has none",
		"finish_detail":       "Chat Completions has only finish_reason, no incomplete reason or stop_sequence",
		"reasoning_signature": "Chat Completions reasoning deltas carry no signature or encrypted content",
	},
}

// ProtocolNotes is capability_notes: the protocol's reasons for the capabilities left out, then the library's own.
func ProtocolNotes(protocol string, capabilities []string, libraryNotes map[string]string) map[string]string {
	notes := map[string]string{}
	for capability, why := range protocolNotes[protocol] {
		claimed := false
		for _, c := range capabilities {
			claimed = claimed || c == capability
		}
		if !claimed {
			notes[capability] = why
		}
	}
	for capability, why := range libraryNotes {
		notes[capability] = why
	}
	return notes
}
