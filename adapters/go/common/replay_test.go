package common

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"testing"
)

// chunks reads a chunked HTTP response from the replay and returns each chunk's bytes: one per flush.
func chunks(t *testing.T, baseURL string) []string {
	conn, err := net.Dial("tcp", strings.TrimPrefix(baseURL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "GET / HTTP/1.1\r\nHost: replay\r\nConnection: close\r\n\r\n")
	reader := bufio.NewReader(conn)
	for {
		line, err := reader.ReadString('\n')
		if err != nil {
			t.Fatal(err)
		}
		if line == "\r\n" {
			break
		}
	}
	var out []string
	for {
		line, err := reader.ReadString('\n')
		if err != nil {
			t.Fatal(err)
		}
		size, err := strconv.ParseInt(strings.TrimSpace(line), 16, 64)
		if err != nil {
			t.Fatal(err)
		}
		if size == 0 {
			return out
		}
		data := make([]byte, size+2) // the chunk and its CRLF
		if _, err := io.ReadFull(reader, data); err != nil {
			t.Fatal(err)
		}
		out = append(out, string(data[:size]))
	}
}

func TestAByteLevelFixtureIsWrittenInItsCutsEvenInsideACharacter(t *testing.T) {
	replay, err := StartReplay()
	if err != nil {
		t.Fatal(err)
	}
	sse := "data: {\"c\":\"é\"}\n\ndata: [DONE]\n\n"
	cut := strings.Index(sse, "é") + 1 // between the two bytes of é
	replay.Serve(Request{SSE: sse, SSECuts: []int{cut, cut + 5}})
	got := chunks(t, replay.BaseURL)
	want := []string{sse[:cut], sse[cut : cut+5], sse[cut+5:]}
	if strings.Join(got, "|") != strings.Join(want, "|") || len(got) != len(want) {
		t.Fatalf("chunks %q, want %q", got, want)
	}
}

func TestWithoutCutsTheBodyIsWrittenInEqualSlices(t *testing.T) {
	replay, err := StartReplay()
	if err != nil {
		t.Fatal(err)
	}
	replay.Serve(Request{SSE: "0123456789abcdef"})
	got := chunks(t, replay.BaseURL)
	if strings.Join(got, "|") != "0123|4567|89ab|cdef" {
		t.Fatalf("chunks %q", got)
	}
}
