package lazyre

import "testing"

func TestNewCompilesOnceOnFirstUse(t *testing.T) {
	re := New(`^a+b$`)
	first := re()
	if !first.MatchString("aaab") || first.MatchString("ab c") {
		t.Fatalf("%v does not match as ^a+b$", first)
	}
	if re() != first {
		t.Fatal("a second call compiled the expression again")
	}
}

func TestNewPanicsOnUseNotOnDeclaration(t *testing.T) {
	re := New(`(`) // declaring a bad expression must not panic
	defer func() {
		if recover() == nil {
			t.Fatal("using an expression that does not compile did not panic")
		}
	}()
	re()
}
