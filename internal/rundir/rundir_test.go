package rundir

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

func TestOpen(t *testing.T) {
	empty := t.TempDir()
	if _, err := Open(empty); err == nil {
		t.Error("an empty folder opened as a run directory")
	}
	dir := t.TempDir()
	for _, f := range []string{"cases/b/run_result.json", "cases/a/outputs/x/y.txt", "cases/a/outputs/z.md"} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, f)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), []byte("{}"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	d, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	ids, err := d.CaseIDs()
	if err != nil || !reflect.DeepEqual(ids, []string{"a", "b"}) {
		t.Errorf("CaseIDs = %v, %v", ids, err)
	}
	files, err := d.OutputFiles("a")
	if err != nil || !reflect.DeepEqual(files, []string{"x/y.txt", "z.md"}) {
		t.Errorf("OutputFiles = %v, %v", files, err)
	}
	if files, err := d.OutputFiles("b"); err != nil || files != nil {
		t.Errorf("OutputFiles of a case without outputs = %v, %v", files, err)
	}
	ledger := `{"ts":"2026-12-01T00:00:00Z","tool":"Bash","decision":"deny","handler":0,"reason":"no","us":5}
not json
{"tool":"AskUserQuestion","decision":"answer","handler":1,"tiers":{"q":"llm"},"us":7}
`
	if err := os.WriteFile(d.Ledger("a"), []byte(ledger), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := d.ReadLedger("a")
	if err != nil || len(got) != 2 || got[0].Decision != "deny" || got[1].Tiers["q"] != "llm" {
		t.Errorf("ReadLedger = %+v, %v", got, err)
	}
	if got, err := d.ReadLedger("b"); err != nil || got != nil {
		t.Errorf("ReadLedger of a case without a ledger = %v, %v", got, err)
	}
}

func TestSummaryRoundTrip(t *testing.T) {
	d := Dir{t.TempDir()}
	v, yes := 0.75, true
	s := &Summary{SchemaVersion: SummaryVersion, RunID: "r1", Passed: true,
		Judges: []JudgeSummary{{Name: "j", Kind: "expr", Type: "float", Scored: 2, Mean: &v}},
		Cases:  []CaseSummary{{ID: "a", Status: "completed", Verdicts: []Verdict{{Judge: "j", Value: &v, Passed: &yes, Rationale: "ok"}}}}}
	if err := d.WriteSummary(s); err != nil {
		t.Fatal(err)
	}
	got, err := d.ReadSummary()
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, s) {
		t.Errorf("round trip:\n got %+v\nwant %+v", got, s)
	}
}
