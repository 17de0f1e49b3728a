package hook

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/agent-eval/agent-eval/internal/intercept"
	"github.com/agent-eval/agent-eval/internal/llm"
)

// TimeoutSeconds is the timeout of the PreToolUse entries agent-eval
// writes: Claude Code kills a hook still running after it, and treats the
// call as a hook failure.
const TimeoutSeconds = 60

// AnswerDeadline bounds all tier-2 calls of one AskUserQuestion call, asked
// at once: three quarters of the hook's timeout, leaving the rest for the
// hook's start, the fallbacks, printing the decision and the ledger. A
// question the hook model has not answered by then gets the fallback.
const AnswerDeadline = TimeoutSeconds * time.Second * 3 / 4

// AnswerTimeout bounds one tier-2 call (the client's own timeout); the
// deadline of the whole call is AnswerDeadline.
const AnswerTimeout = AnswerDeadline

// contextFiles are the case files the LLM tier reads (never secrets: the
// docs say so, and they are sent to the hook model).
var contextFiles = []string{"input.yaml", "answers.yaml"}

// LLMAnswerer is the tier-2 answerer: the hook model, given the question,
// its options, the handler's prompt and the case's input.yaml and
// answers.yaml from caseDir.
type LLMAnswerer struct {
	CaseDir string
	Client  *llm.Client
}

// NewLLMAnswerer returns the tier-2 answerer for a case directory, its
// client's credentials read through getenv.
func NewLLMAnswerer(caseDir string, getenv func(string) string) intercept.Answerer {
	return LLMAnswerer{CaseDir: caseDir, Client: llm.NewFromEnv(1, getenv)}
}

const answerSystem = `You answer a question that an AI agent asked its user during an automated evaluation; no human is present. ` +
	`Use the case context and the instruction you are given. Reply with exactly one of the option labels, ` +
	`or with several labels separated by commas when the question allows several, and nothing else.`

// Answer asks the hook model.
func (a LLMAnswerer) Answer(ctx context.Context, q intercept.Question) (string, error) {
	var b strings.Builder
	if q.Prompt != "" {
		fmt.Fprintf(&b, "Instruction:\n%s\n\n", strings.TrimSpace(q.Prompt))
	}
	for _, name := range contextFiles {
		if data, err := os.ReadFile(filepath.Join(a.CaseDir, name)); err == nil {
			fmt.Fprintf(&b, "## %s\n%s\n\n", name, strings.TrimSpace(string(data)))
		}
	}
	fmt.Fprintf(&b, "Question: %s\n", q.Question)
	if q.MultiSelect {
		b.WriteString("(several options may be chosen)\n")
	}
	b.WriteString("Options:\n")
	for _, o := range q.Options {
		fmt.Fprintf(&b, "- %s\n", o)
	}
	zero := 0.0
	return a.Client.Text(ctx, q.Model, answerSystem, b.String(), 256, &zero, AnswerTimeout)
}
