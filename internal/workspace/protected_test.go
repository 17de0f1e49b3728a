package workspace

import (
	"strings"
	"testing"

	"github.com/agent-eval/agent-eval/internal/testutil/readonly"
)

func TestProtectedDeniesIsReadOnly(t *testing.T) {
	t.Parallel()
	readonly.Strings(t, ProtectedDenies, func() string { return strings.Join(ProtectedDenies(), " ") })
}
