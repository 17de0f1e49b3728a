package config

import (
	"reflect"
	"strings"
	"testing"
)

// TestLimitsTakeBytesOrSizes: execution.limits' sizes take plain bytes or
// a size with a unit, in the loader and in the schema alike.
func TestLimitsTakeBytesOrSizes(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		value string
		want  int64
		err   string
	}{
		{"4096", 4096, ""},
		{`"4096"`, 4096, ""},
		{`"100MiB"`, 100 << 20, ""},
		{`"2 GB"`, 2e9, ""},
		{"1KiB", 1024, ""},
		{`" 3TiB "`, 3 << 40, ""},
		{`"7B"`, 7, ""},
		{`"1.5GiB"`, 0, `must be a number of bytes or a size ("100MiB", "2GB"), got the string "1.5GiB"`},
		{`"100mib"`, 0, `must be a number of bytes or a size`},
		{`"100 MiB of it"`, 0, `must be a number of bytes or a size`},
		{`"0MiB"`, 0, `must be a number of bytes or a size`},
		{"0", 0, "must be greater than 0"},
		{"-5", 0, "must be greater than 0"},
		{`"9999999999TiB"`, 0, `must be a number of bytes or a size`},
	} {
		src := "execution:\n  prompt: hi\n  limits:\n    collect_bytes: " + tc.value + "\n    file_bytes: " + tc.value + "\n"
		ev, err := Parse("eval.yaml", []byte(src))
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) || !strings.Contains(err.Error(), "execution.limits.collect_bytes") || !strings.Contains(err.Error(), "execution.limits.file_bytes") {
				t.Errorf("size %s: err %v, want %q on both", tc.value, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("size %s: %v", tc.value, err)
			continue
		}
		if got := ev.CollectBytes(); got != tc.want {
			t.Errorf("collect_bytes %s = %d, want %d", tc.value, got, tc.want)
		}
		if got := ev.FileBytes(); got != tc.want {
			t.Errorf("file_bytes %s = %d, want %d", tc.value, got, tc.want)
		}
		if valid, _, detail := schemaVerdict(t, []byte(src)); !valid {
			t.Errorf("the schema rejects size %s: %s", tc.value, detail)
		}
	}
}

// TestLimitsDefaults: unset limits are the documented defaults (the
// default tags, which docs/configuration.md and the schema show).
func TestLimitsDefaults(t *testing.T) {
	t.Parallel()
	ev, err := Parse("eval.yaml", []byte("execution:\n  prompt: hi\n"))
	if err != nil {
		t.Fatal(err)
	}
	tag := func(field string) string {
		f, _ := reflect.TypeFor[Limits]().FieldByName(field)
		return strings.Trim(f.Tag.Get("default"), `"`)
	}
	for _, tc := range []struct {
		field string
		got   int64
	}{
		{"CollectBytes", ev.CollectBytes()},
		{"FileBytes", ev.FileBytes()},
		{"Files", int64(ev.CollectFiles())},
	} {
		want, err := ParseBytes(tag(tc.field))
		if err != nil || tc.got != want {
			t.Errorf("%s = %d, its default tag says %q (%d, %v)", tc.field, tc.got, tag(tc.field), want, err)
		}
	}
	if ev.FileBytes() > ev.CollectBytes() {
		t.Errorf("the default file_bytes %d is over the default collect_bytes %d", ev.FileBytes(), ev.CollectBytes())
	}
}

func TestFormatBytes(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		n    int64
		want string
	}{
		{0, "0 B"},
		{1023, "1023 B"},
		{1024, "1.0 KiB"},
		{1536, "1.5 KiB"},
		{600 << 20, "600 MiB"},
		{100 << 20, "100 MiB"},
		{100<<20 + 400<<10, "100.4 MiB"},
		{4 << 30, "4.0 GiB"},
		{1<<62 + 1<<61, "6.0 EiB"},
	} {
		if got := FormatBytes(tc.n); got != tc.want {
			t.Errorf("FormatBytes(%d) = %q, want %q", tc.n, got, tc.want)
		}
	}
}
