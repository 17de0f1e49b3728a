package intercept_test

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agent-eval/agent-eval/internal/intercept"
)

// TestTargetsCorpusIsCatalog: the target corpus's handler sets for Jira,
// Kubernetes, databases, GitHub and AWS are what `compile --resolve
// catalog` writes for their match text, so the corpus tests the handlers
// evals get.
func TestTargetsCorpusIsCatalog(t *testing.T) {
	t.Parallel()
	corpus, err := loadCorpus()
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"targets_jira", "targets_k8s", "targets_db", "targets_github", "targets_aws"} {
		set, ok := corpus.HandlerSets[name]
		if !ok || len(set.Handlers) != 1 {
			t.Fatalf("handler set %s: missing or not one handler", name)
		}
		want := set.Handlers[0]
		got, res, ok := intercept.ResolveCatalog(intercept.Handler{Match: want.Match, Patterns: intercept.ExtractPatterns(want.Match)})
		if !ok || len(res.Services) != 1 {
			t.Fatalf("%s: the catalogue resolves %q to %v", name, want.Match, res.Services)
		}
		slices.Sort(got.Patterns)
		slices.Sort(want.Patterns)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s is not what the catalogue writes (-corpus +catalogue):\n%s", name, diff)
		}
	}
}
