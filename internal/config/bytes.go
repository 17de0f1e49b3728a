package config

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/agent-eval/agent-eval/internal/lazyre"
)

// A size in eval.yaml (check:"bytes") is a whole number of bytes, or a
// string: a whole number and a unit, decimal (KB, MB, GB, TB: powers of
// 1000) or binary (KiB, MiB, GiB, TiB: powers of 1024). sizeRE is its
// grammar, which the JSON Schema carries as the string's pattern; a size
// is never 0.
var sizeRE = lazyre.New(sizePattern)

const sizePattern = `^\s*0*[1-9][0-9]*\s*(B|KB|MB|GB|TB|KiB|MiB|GiB|TiB)?\s*$`

var sizeUnits = map[string]int64{
	"": 1, "B": 1,
	"KB": 1e3, "MB": 1e6, "GB": 1e9, "TB": 1e12,
	"KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30, "TiB": 1 << 40,
}

// ParseBytes reads a size ("100MiB", "2 GB", "4096") into bytes.
func ParseBytes(s string) (int64, error) {
	m := sizeRE().FindStringSubmatch(s)
	if m == nil {
		return 0, fmt.Errorf("%q is not a size (a number of bytes, or one with a unit: \"100MiB\", \"2GB\")", s)
	}
	digits := strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(s), m[1]))
	n, err := strconv.ParseInt(digits, 10, 64)
	unit := sizeUnits[m[1]]
	if err != nil || n > math.MaxInt64/unit {
		return 0, fmt.Errorf("%q is too large a size", s)
	}
	return n * unit, nil
}

// FormatBytes writes n bytes for a person, in binary units: "512 B",
// "4.0 GiB", "600 MiB", "100.4 MiB".
func FormatBytes(n int64) string {
	if n < 1024 {
		return strconv.FormatInt(n, 10) + " B"
	}
	v, unit := float64(n), ""
	for _, u := range []string{"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"} {
		if v /= 1024; v < 1024 || u == "EiB" {
			unit = u
			break
		}
	}
	switch {
	case v < 10:
		return fmt.Sprintf("%.1f %s", v, unit)
	case math.Abs(v-math.Round(v)) < 0.05:
		return fmt.Sprintf("%.0f %s", v, unit)
	}
	return fmt.Sprintf("%.1f %s", v, unit)
}
