package fake_test

import (
	"testing"

	"github.com/agent-eval/agent-eval/internal/runner"
	"github.com/agent-eval/agent-eval/internal/runner/fake"
	"github.com/agent-eval/agent-eval/internal/runner/runnertest"
)

func TestRunnerSuite(t *testing.T) {
	t.Parallel()
	runnertest.Run(t, runnertest.Harness{
		New: func() runner.Runner {
			return fake.New(map[string]fake.Script{"quick": {Text: "done"}, "hang": {Hang: true}})
		},
		Setup: func(*testing.T, string) runner.RunSetup { return runner.RunSetup{} },
	})
}

func TestRegistry(t *testing.T) {
	t.Parallel()
	r := runner.NewRegistry()
	f := fake.New(nil)
	r.Register(runner.TypeFake, f.Factory())
	if got, err := r.New(runner.TypeFake); err != nil || got != runner.Runner(f) {
		t.Errorf("New(fake) = %v, %v", got, err)
	}
	if _, err := r.New(runner.TypeCLI); err == nil {
		t.Errorf("New(cli) without a registration: no error")
	}
	defer func() {
		if recover() == nil {
			t.Errorf("a duplicate registration did not panic")
		}
	}()
	r.Register(runner.TypeFake, f.Factory())
}
