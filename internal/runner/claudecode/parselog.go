package claudecode

import (
	"bufio"
	"fmt"
	"io"

	"github.com/agent-eval/agent-eval/internal/stream"
	"github.com/agent-eval/agent-eval/internal/transcript"
)

// ParseLog parses a finished agent log with the parser Run uses: Claude
// Code's stream-json lines, with whatever else the log holds (stderr text
// mixed in, as Harbor's claude-code agent writes its claude-code.txt)
// counted as junk and skipped. onEvent, when set, receives the transcript
// events. Like Run, an is_error result makes IsError true; the exit code is
// the caller's.
func ParseLog(r io.Reader, onEvent func(transcript.Event)) (*Summary, error) {
	p := stream.NewParser()
	p.OnEvent = onEvent
	br := bufio.NewReaderSize(r, 64<<10)
	for {
		line, err := br.ReadBytes('\n')
		if len(line) > 0 {
			p.Line(line)
		}
		if err == io.EOF {
			return p.Summary(), nil
		}
		if err != nil {
			return p.Summary(), fmt.Errorf("read the agent's log: %w", err)
		}
	}
}

// Summary is what an agent's stream said (package stream's summary).
type Summary = stream.Summary
