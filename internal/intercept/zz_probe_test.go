package intercept_test

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/agent-eval/agent-eval/internal/intercept"
	"github.com/agent-eval/agent-eval/internal/testutil/decisions"
)

func TestZZProbe(t *testing.T) {
	f := os.Getenv("PROBE")
	if f == "" {
		t.Skip()
	}
	corpus, err := decisions.Load("testdata/decisions.yaml")
	if err != nil {
		t.Fatal(err)
	}
	fh, _ := os.Open(f)
	sc := bufio.NewScanner(fh)
	set := "targets_jira"
	env := map[string]string{"HOME": "/home/dev", "JIRA_SERVER": "http://localhost:8080", "KUBECONFIG": "/home/dev/.kube/kind-test", "DATABASE_URL": "postgres://app@localhost/app", "GH_HOST": "github.test", "GITHUB_API_URL": "http://github.test", "AWS_ENDPOINT_URL": "http://localhost:4566"}
	for sc.Scan() {
		l := sc.Text()
		if strings.HasPrefix(l, "@") {
			set = l[1:]
			continue
		}
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		p, err := intercept.Prepare(corpus.HandlerSets[set])
		if err != nil {
			t.Fatal(err)
		}
		d := intercept.Decide(context.Background(), p, intercept.Request{ToolName: "Bash", ToolInput: map[string]any{"command": l}, Env: env}, nil)
		fmt.Printf("%-5s h=%d %s\n      %s\n", d.Kind, d.Handler, l, clipS(strings.TrimPrefix(d.Reason, "Blocked by eval harness: "), 220))
	}
}

func clipS(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}
