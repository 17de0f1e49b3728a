package score

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/agent-eval/agent-eval/internal/fakeapi"
	"github.com/agent-eval/agent-eval/internal/testutil/fakemodel"
)

// BenchmarkScore200 scores a synthetic run of 200 cases with an expr judge,
// a builtin and one LLM judge against the fake Messages API, twice: the
// first pass calls the model for every case, the second answers every
// verdict from judge_cache/. It reports both passes' wall time and calls.
//
//	go test ./internal/score -run '^$' -bench Score200 -benchtime 1x
func BenchmarkScore200(b *testing.B) {
	srv := fakeapi.New(fakeapi.Options{Script: &fakeapi.Script{Match: []fakeapi.Match{{Contains: "Rate", Turn: score(4, "solid")}}}})
	fakemodel.Serve(b, srv)
	cases := make([]fixtureCase, 200)
	for i := range cases {
		cases[i] = fixtureCase{id: fmt.Sprintf("case-%03d", i), cost: 0.01,
			files: map[string]string{"output/answer.md": fmt.Sprintf("# Answer %d\n\nSome text the agent wrote.\n", i)}}
	}
	ev, dir := writeProject(b, `name: bench
execution:
  prompt: hi
dataset:
  path: cases
outputs:
  - path: output
models:
  judge: claude-judge
judges:
  - name: has_answer
    expr: len(files) > 0
  - name: cheap
    builtin: cost_budget
  - name: quality
    score_range: [1, 5]
    prompt: "Rate the answer of {{ case_id }}: {{ outputs }}"
thresholds:
  quality:
    min_mean: 3
`, cases...)
	b.ResetTimer()
	for range b.N {
		for _, pass := range []string{"first", "cached"} {
			start := time.Now()
			s, err := Score(context.Background(), Options{Dir: dir, Eval: ev, NoCache: false, Getenv: os.Getenv})
			if err != nil {
				b.Fatal(err)
			}
			if !s.Passed {
				b.Fatalf("thresholds: %v", Regressions(s))
			}
			b.ReportMetric(time.Since(start).Seconds(), pass+"-s")
			b.ReportMetric(float64(s.LLM.Made), pass+"-made")
			b.ReportMetric(float64(s.LLM.Cached), pass+"-cached")
		}
		b.StopTimer()
		must(b, removeCache(dir.JudgeCache()))
		b.StartTimer()
	}
}
