package clirunner

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/agent-eval/agent-eval/internal/transcript"
)

// MetricsFile is where a cli agent may report what it used, relative to
// its output folder ({output_dir}, the workspace's output/).
const MetricsFile = "metrics.json"

// Metrics is upstream's output/metrics.json. Every field is optional; one
// that is set wins over what the stream says.
//
//	{"token_usage": {"input": 8, "output": 15, "cache_read": 0, "cache_write": 0},
//	 "cost_usd": 0.00025, "num_turns": 2, "model": "anthropic/claude-sonnet-4-5"}
type Metrics struct {
	TokenUsage *struct {
		Input      int64 `json:"input"`
		Output     int64 `json:"output"`
		CacheRead  int64 `json:"cache_read"`
		CacheWrite int64 `json:"cache_write"`
		// CacheCreate is an alias of CacheWrite (upstream's per-model
		// usage name).
		CacheCreate int64 `json:"cache_create"`
	} `json:"token_usage"`
	CostUSD  *float64 `json:"cost_usd"`
	NumTurns *int     `json:"num_turns"`
	Model    string   `json:"model"`
}

// ReadMetrics reads dir/metrics.json; (nil, nil) when there is none.
func ReadMetrics(dir string) (*Metrics, error) {
	p := filepath.Join(dir, MetricsFile)
	st, err := os.Lstat(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", p, err)
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("read %s: not a regular file", p)
	}
	if st.Size() > 1<<20 {
		return nil, fmt.Errorf("read %s: %d bytes, more than a metrics file holds", p, st.Size())
	}
	b, err := os.ReadFile(p)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", p, err)
	}
	var m Metrics
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("read %s: %w", p, err)
	}
	return &m, nil
}

// apply lays m over s.
func (m *Metrics) apply(s *Summary) {
	if m == nil {
		return
	}
	if u := m.TokenUsage; u != nil {
		cw := u.CacheWrite
		if cw == 0 {
			cw = u.CacheCreate
		}
		s.Usage = transcript.Usage{InputTokens: u.Input, OutputTokens: u.Output, CacheReadTokens: u.CacheRead, CacheCreationTokens: cw}
	}
	if m.CostUSD != nil {
		s.CostUSD = *m.CostUSD
	}
	if m.NumTurns != nil {
		s.NumTurns = *m.NumTurns
	}
	if m.Model != "" {
		s.Model = m.Model
	}
}
