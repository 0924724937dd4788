// Package common is the deltacheck driver protocol v1 (docs/PROTOCOL.md) for every Go driver: one
// JSON object per line on stdin and stdout, and the helpers that feed a fixture to a library through
// its own HTTP client (a loopback server answering with the fixture's SSE bytes).
package common

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"regexp"
	"runtime/debug"
	"sort"
	"strings"
)

// Request is one run request's fixture, stripped of every expectation.
type Request struct {
	Fixture   string            `json:"fixture"`
	Protocol  string            `json:"protocol"`
	Chunks    []json.RawMessage `json:"chunks"`
	StreamEnd string            `json:"stream_end"`
	SSE       string            `json:"sse"`
	SSECuts   []int             `json:"sse_cuts"` // byte offsets where a byte-level fixture cuts the body into reads
}

// Description is the hello's implementation (the same fields as an in-process adapter's describe()).
type Description struct {
	Name            string            `json:"name"`
	Library         string            `json:"library"`
	Version         string            `json:"version"`
	Language        string            `json:"language"`
	Protocols       []string          `json:"protocols"`
	Capabilities    []string          `json:"capabilities"`
	CodePath        string            `json:"code_path"`
	CapabilityNotes map[string]string `json:"capability_notes,omitempty"` // the library's own reasons only
}

// CannotRun is returned by an implementation that cannot run a request at all: the reply is `skipped`.
type CannotRun struct{ Reason string }

func (c CannotRun) Error() string { return c.Reason }

// Run assembles one request into a canonical result (CONTRACT.md 3), or fails.
type Run func(Request) (map[string]any, error)

// AdapterName is the manifest's adapter name (DELTACHECK_ADAPTER_NAME), else the driver's default.
func AdapterName(fallback string) string {
	if name := os.Getenv("DELTACHECK_ADAPTER_NAME"); name != "" {
		return name
	}
	return fallback
}

// ModuleVersion is the version of a module linked into this binary, as the build recorded it.
func ModuleVersion(path string) string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	for _, dep := range info.Deps {
		if dep.Path == path {
			if dep.Replace != nil {
				return dep.Replace.Version
			}
			return dep.Version
		}
	}
	return "unknown"
}

type message struct {
	Cmd     string          `json:"cmd"`
	Version json.RawMessage `json:"version"`
	Seq     json.RawMessage `json:"seq"`
	Request json.RawMessage `json:"request"`
}

// Serve answers the harness until `stop` or the end of stdin. stdout carries protocol lines only.
func Serve(description Description, run Run) {
	description.Language = "go"
	sort.Strings(description.Protocols)
	sort.Strings(description.Capabilities)
	out := bufio.NewWriter(os.Stdout)
	in := bufio.NewReaderSize(os.Stdin, 1<<20)
	for {
		line, err := in.ReadBytes('\n')
		if len(bytes.TrimSpace(line)) > 0 {
			handle(bytes.TrimSpace(line), description, run, out)
		}
		if err == io.EOF {
			os.Exit(0)
		} else if err != nil {
			fmt.Fprintf(os.Stderr, "driver: reading stdin: %v\n", err)
			os.Exit(1)
		}
	}
}

func handle(line []byte, description Description, run Run, out *bufio.Writer) {
	var msg message
	if err := json.Unmarshal(line, &msg); err != nil {
		fmt.Fprintf(os.Stderr, "driver: ignoring a line that is not a JSON object: %.200s\n", line)
		return
	}
	switch msg.Cmd {
	case "start":
		if string(msg.Version) != "1" {
			fmt.Fprintf(os.Stderr, "driver: protocol version %s is not supported (only 1)\n", msg.Version)
			os.Exit(2)
		}
		write(out, map[string]any{"cmd": "start", "version": 1, "implementation": description})
	case "run":
		write(out, reply(msg, description, run))
	case "stop":
		os.Exit(0)
	default:
		fmt.Fprintf(os.Stderr, "driver: ignoring unknown command %q\n", msg.Cmd)
	}
}

func reply(msg message, description Description, run Run) (reply map[string]any) {
	reply = map[string]any{"seq": msg.Seq}
	var request Request
	if err := json.Unmarshal(msg.Request, &request); err != nil {
		reply["errored"] = map[string]any{"message": "driver: the request is not a fixture request: " + err.Error()}
		return reply
	}
	spoken := false
	for _, p := range description.Protocols {
		spoken = spoken || p == request.Protocol
	}
	if !spoken {
		reply["skipped"] = map[string]any{"reason": fmt.Sprintf("%s does not speak %s", description.Name, request.Protocol)}
		return reply
	}
	defer func() {
		if panicked := recover(); panicked != nil {
			reply = map[string]any{"seq": msg.Seq, "errored": map[string]any{
				"message": oneLine(fmt.Sprintf("panic: %v", panicked)), "traceback": stableStack(debug.Stack())}}
		}
	}()
	result, err := run(request)
	if cannot, ok := err.(CannotRun); ok {
		reply["skipped"] = map[string]any{"reason": cannot.Reason}
	} else if err != nil {
		reply["errored"] = map[string]any{"message": oneLine(fmt.Sprintf("%T: %v", err, err)), "traceback": fmt.Sprintf("%+v", err)}
	} else if _, err := json.Marshal(result); err != nil {
		reply["errored"] = map[string]any{"message": oneLine("driver: the result is not JSON: " + err.Error())}
	} else {
		reply["result"] = result
	}
	return reply
}

func oneLine(text string) string {
	return strings.Join(strings.Fields(text), " ")
}

func write(out *bufio.Writer, value any) {
	var buffer bytes.Buffer
	encoder := json.NewEncoder(&buffer)
	encoder.SetEscapeHTML(false)
	if err := encoder.Encode(value); err != nil {
		fmt.Fprintf(os.Stderr, "driver: cannot write a reply: %v\n", err)
		os.Exit(1)
	}
	out.Write(buffer.Bytes()) // Encode ends the line with \n
	out.Flush()
}

// Goroutine numbers, argument words and code offsets change from run to run; the report must not.
var unstableStackParts = regexp.MustCompile(`goroutine \d+|\((0x[0-9a-f]+|\.\.\.)(, (0x[0-9a-f]+|\.\.\.))*\)| \+0x[0-9a-f]+`)

// stableStack is a panic's stack with what varies between runs taken out.
func stableStack(stack []byte) string {
	return unstableStackParts.ReplaceAllStringFunc(string(stack), func(part string) string {
		switch {
		case strings.HasPrefix(part, "goroutine"):
			return "goroutine"
		case strings.HasPrefix(part, " +0x"):
			return ""
		default:
			return "(...)"
		}
	})
}
