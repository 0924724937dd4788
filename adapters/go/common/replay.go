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
// text/event-stream body, written in slices flushed one by one: where a byte-level fixture cuts it
// (`sse_cuts`, which may fall inside a multi-byte character), else in equal byte slices (so slices
// may cut lines, events and multi-byte characters, as a network does).
type Replay struct {
	BaseURL string
	body    atomic.Value // the current response, a served
}

type served struct {
	body  []byte
	edges []int // slice boundaries, from 0 to len(body)
}

// StartReplay listens on 127.0.0.1 and serves in the background.
func StartReplay() (*Replay, error) {
	listener, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	replay := &Replay{BaseURL: "http://" + listener.Addr().String()}
	replay.body.Store(served{edges: []int{0}})
	go http.Serve(listener, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		current := replay.body.Load().(served)
		w.Header().Set("Content-Type", "text/event-stream; charset=utf-8")
		w.WriteHeader(http.StatusOK)
		for i := 1; i < len(current.edges); i++ {
			w.Write(current.body[current.edges[i-1]:current.edges[i]])
			if flusher, ok := w.(http.Flusher); ok {
				flusher.Flush()
			}
		}
	}))
	return replay, nil
}

// Serve makes the next requests answer with the request's SSE text, cut where the fixture cuts it.
func (r *Replay) Serve(request Request) {
	body := []byte(request.SSE)
	edges := []int{0}
	if len(request.SSECuts) > 0 {
		edges = append(edges, request.SSECuts...)
	} else {
		size := max(1, (len(body)+pieces-1)/pieces)
		for offset := size; offset < len(body); offset += size {
			edges = append(edges, offset)
		}
	}
	r.body.Store(served{body: body, edges: append(edges, len(body))})
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
