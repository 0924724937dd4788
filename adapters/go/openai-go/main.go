// deltacheck driver for openai-go v3 (github.com/openai/openai-go/v3).
//
// openai-go-chat: client.Chat.Completions.NewStreaming(...), every chunk given to
// ChatCompletionAccumulator.AddChunk, the result read from the accumulated ChatCompletion, and the
// tool-call completion events from JustFinishedToolCallForChoice after each chunk. The client is the
// SDK's own, with option.WithBaseURL at a loopback server answering with the fixture's SSE bytes, so
// its HTTP and SSE code runs. There is no Responses driver: openai-go's responses.ResponseAccumulator
// takes WebSocket server events (ResponsesServerEventUnion from ResponseConnection.Recv, bound to one
// socket lane), and the Responses SSE stream (Responses.NewStreaming) has no accumulator.
//
// Go's value types have no "absent": the accumulated message holds "" for an id, name or
// finish_reason that never arrived; "" is read as null, nothing else is changed. Usage is left out:
// AddChunk adds every chunk's usage into a value-type CompletionUsage that keeps no record of which
// fields arrived, so the streamed usage object cannot be told apart from its zero-filled form.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"time"

	"deltacheck.invalid/drivers/common"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/packages/ssestream"
)

const module = "github.com/openai/openai-go/v3"

var (
	replay *common.Replay
	client openai.Client
)

func main() {
	if len(os.Args) < 2 || os.Args[1] != "chat" {
		fmt.Fprintln(os.Stderr, "usage: driver chat")
		os.Exit(2)
	}
	var err error
	replay, err = common.StartReplay()
	if err != nil {
		fmt.Fprintln(os.Stderr, "driver: cannot listen on loopback:", err)
		os.Exit(1)
	}
	client = openai.NewClient(option.WithBaseURL(replay.BaseURL+"/v1/"), option.WithAPIKey(common.APIKey),
		option.WithMaxRetries(0), option.WithRequestTimeout(8*time.Second))
	capabilities := []string{"refusal", "finish_reason", "error", "multiple_choices", "events"}
	common.Serve(common.Description{
		Name: common.AdapterName("openai-go-chat"), Library: "openai-go", Version: common.ModuleVersion(module),
		Protocols: []string{"openai-chat"}, Capabilities: capabilities,
		CodePath: "openai-go client.Chat.Completions.NewStreaming(), each chunk given to ChatCompletionAccumulator.AddChunk, " +
			"with JustFinishedToolCallForChoice after each chunk; option.WithBaseURL points the client at a loopback " +
			"server answering with the SSE bytes, so the SDK's own HTTP and SSE parsing run",
		CapabilityNotes: map[string]string{
			"reasoning": "ChatCompletionMessage has no reasoning field and the accumulated ChatCompletion keeps no raw JSON " +
				"(AddChunk ignores the JSON metadata), so reasoning_content / reasoning deltas cannot be read back",
			"usage": "AddChunk adds each chunk's usage into a value-type CompletionUsage with no record of which fields " +
				"arrived (zero means both absent and 0, and the details objects always exist), so the streamed usage " +
				"object cannot be read back",
			"flags": "the accumulated ChatCompletionMessageToolCall keeps the arguments as a string; nothing marks " +
				"arguments that do not parse",
			"extra_content": "ChatCompletionMessageToolCall has no extra_content field and the accumulated ChatCompletion " +
				"keeps no raw JSON (AddChunk copies a tool-call delta's id, type, name and arguments and ignores the JSON " +
				"metadata), so a call's extra_content cannot be read back",
			"message_extra_content": "ChatCompletionMessage has no extra_content field and the accumulated ChatCompletion " +
				"keeps no raw JSON (AddChunk copies a delta's role, content, refusal and tool calls and ignores the JSON " +
				"metadata), so the message's own extra_content cannot be read back",
		},
	}, runChat)
}

func nullIfEmpty(text string) any {
	if text == "" {
		return nil
	}
	return text
}

func runChat(request common.Request) (map[string]any, error) {
	replay.Serve(request)
	locator := common.NewChunkLocator(request.Chunks)
	stream := client.Chat.Completions.NewStreaming(context.Background(), openai.ChatCompletionNewParams{
		Model:    "gpt-4o",
		Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("deltacheck")},
	})
	defer stream.Close()
	accumulator := openai.ChatCompletionAccumulator{}
	events := []any{}
	for stream.Next() {
		chunk := stream.Current()
		position := locator.Locate(chunk.RawJSON())
		if !accumulator.AddChunk(chunk) {
			return nil, fmt.Errorf("ChatCompletionAccumulator.AddChunk refused chunk %d: %.200s", position, chunk.RawJSON())
		}
		for _, choice := range chunk.Choices {
			if call, ok := accumulator.JustFinishedToolCallForChoice(int(choice.Index)); ok {
				var afterChunk any
				if position >= 0 {
					afterChunk = position
				}
				events = append(events, map[string]any{"type": "tool_call_done", "choice": choice.Index, "id": nullIfEmpty(call.ID),
					"name": nullIfEmpty(call.Name), "arguments": call.Arguments, "after_chunk": afterChunk})
			}
		}
	}
	if err := stream.Err(); err != nil {
		var streamError *ssestream.StreamError
		if errors.As(err, &streamError) {
			return providerError(streamError, events)
		}
		return nil, err
	}
	choices := []any{}
	for _, choice := range accumulator.Choices {
		choices = append(choices, chatChoice(choice))
	}
	return map[string]any{"choices": choices, "usage": nil, "error": nil, "events": events}, nil
}

func chatChoice(choice openai.ChatCompletionChoice) map[string]any {
	message := choice.Message
	parts := []any{}
	// "" too (a value type, where no content and "" are one): the comparator omits an empty part (CONTRACT 3.2)
	parts = append(parts, common.TextPart(message.Content))
	parts = append(parts, common.RefusalPart(message.Refusal))
	for _, call := range message.ToolCalls {
		parts = append(parts, common.ToolCallPart("function", nullIfEmpty(call.ID), nil, nullIfEmpty(call.Function.Name), call.Function.Arguments))
	}
	if message.FunctionCall.Name != "" || message.FunctionCall.Arguments != "" {
		parts = append(parts, common.ToolCallPart("function", nil, nil, nullIfEmpty(message.FunctionCall.Name), message.FunctionCall.Arguments))
	}
	return map[string]any{"index": choice.Index, "parts": parts, "finish_reason": nullIfEmpty(choice.FinishReason), "finish_detail": nil}
}

// providerError maps the error object the SDK keeps in its StreamError: no choices (the stream ends there).
func providerError(e *ssestream.StreamError, events []any) (map[string]any, error) {
	var data struct {
		Error json.RawMessage `json:"error"`
	}
	var body map[string]any
	if json.Unmarshal(e.Event.Data, &data) != nil || json.Unmarshal(data.Error, &body) != nil {
		return nil, e
	}
	errorType := body["type"]
	if errorType == nil {
		errorType = body["code"]
	}
	// A numeric type is passed on as the number it is (CONTRACT.md 4 compares it as its text). An error
	// object without a text message is not one the stream can report: the SDK's StreamError stays.
	message, ok := body["message"].(string)
	if !ok {
		return nil, e
	}
	return map[string]any{"choices": []any{}, "usage": nil, "error": map[string]any{"type": errorType, "message": message},
		"events": events}, nil
}
