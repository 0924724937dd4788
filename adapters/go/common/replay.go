package common

import (
	"encoding/json"
	"io"
	"net"
	"net/http"
	"reflect"
	"sync/atomic"
)

// APIKey is what a client sends to the loopback server; nothing checks it.
const APIKey = "sk-deltacheck-dummy"

const pieces = 4

// Replay is a loopback HTTP server answering every request with the current fixture's SSE text as a
// text/event-stream body, written in equal byte slices flushed one by one (so slices may cut lines,
// events and multi-byte characters, as a network does).
type Replay struct {
	BaseURL string
	body    atomic.Value
}

// StartReplay listens on 127.0.0.1 and serves in the background.
func StartReplay() (*Replay, error) {
	listener, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	replay := &Replay{BaseURL: "http://" + listener.Addr().String()}
	replay.body.Store([]byte{})
	go http.Serve(listener, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		body := replay.body.Load().([]byte)
		w.Header().Set("Content-Type", "text/event-stream; charset=utf-8")
		w.WriteHeader(http.StatusOK)
		size := (len(body) + pieces - 1) / pieces
		if size < 1 {
			size = 1
		}
		for offset := 0; offset < len(body); offset += size {
			end := min(offset+size, len(body))
			w.Write(body[offset:end])
			if flusher, ok := w.(http.Flusher); ok {
				flusher.Flush()
			}
		}
	}))
	return replay, nil
}

// Serve makes the next requests answer with this SSE text.
func (r *Replay) Serve(sse string) {
	r.body.Store([]byte(sse))
}

// ChunkLocator finds which fixture chunk a chunk the library parsed is, by its JSON value, searching
// forward from the last one found (a library consumes chunks in order and may skip some).
type ChunkLocator struct {
	chunks []any
	next   int
}

func NewChunkLocator(raw []json.RawMessage) *ChunkLocator {
	locator := &ChunkLocator{}
	for _, chunk := range raw {
		var value any
		json.Unmarshal(chunk, &value)
		locator.chunks = append(locator.chunks, value)
	}
	return locator
}

// Locate returns the chunk's index, or -1 when it matches no later chunk.
func (l *ChunkLocator) Locate(rawJSON string) int {
	var value any
	if json.Unmarshal([]byte(rawJSON), &value) != nil {
		return -1
	}
	for i := l.next; i < len(l.chunks); i++ {
		if reflect.DeepEqual(l.chunks[i], value) {
			l.next = i + 1
			return i
		}
	}
	return -1
}
