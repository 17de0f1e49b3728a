package intercept

import "testing"

// TestOptionTablesParse: the clients' option tables are parsed on first
// use, not at start-up, so a bad spec would panic only in the call that
// reaches it. Every table is parsed here.
func TestOptionTablesParse(t *testing.T) {
	t.Parallel()
	tables := map[string]optTable{"git push": gitPushOpts, "git": gitGlobalOpts}
	for name, cl := range clientsByName() {
		tables[name] = cl.opts
	}
	for name, table := range tables {
		func() {
			defer func() {
				if r := recover(); r != nil {
					t.Errorf("%s: %v", name, r)
				}
			}()
			table()
		}()
	}
	if len(tables) < 50 {
		t.Errorf("only %d option tables", len(tables))
	}
}
