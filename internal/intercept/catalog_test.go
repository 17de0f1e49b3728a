package intercept

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestCatalogIsReadOnly: changing what Catalog returns, down to a Jira
// command regex, an alias and a variable, leaves the catalogue handlers
// resolve with unchanged.
func TestCatalogIsReadOnly(t *testing.T) {
	t.Parallel()
	h := Handler{Match: "Any interaction with Jira", Patterns: []string{"Bash"}}
	before, _, _ := ResolveCatalog(h)
	c := Catalog()
	for i := range c {
		c[i].Name, c[i].URLEnv = "changed", false
		for _, list := range [][]string{c[i].Aliases, c[i].Commands, c[i].MCP, c[i].Env} {
			for j := range list {
				list[j] = "changed"
			}
		}
	}
	if diff := cmp.Diff(Catalog(), catalog); diff != "" {
		t.Errorf("Catalog() after its copy was changed (-got +catalog):\n%s", diff)
	}
	after, res, ok := ResolveCatalog(h)
	if !ok || !cmp.Equal(res.Services, []string{"Jira"}) || !cmp.Equal(before, after) {
		t.Errorf("ResolveCatalog after the change = %+v, %+v, %v; want %+v", after, res, ok, before)
	}
}
