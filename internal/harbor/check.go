package harbor

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/BurntSushi/toml"

	"github.com/agent-eval/agent-eval/internal/lazyre"
)

// Problem is one way a task folder breaks Harbor's acceptance rules: Harbor
// would skip the task without a word, or fail it.
type Problem struct {
	File string // the file or folder at fault
	Msg  string
}

func (p Problem) String() string { return p.File + ": " + p.Msg }

// ProblemsError is an export whose tree failed Check.
type ProblemsError struct{ Problems []Problem }

func (e *ProblemsError) Error() string {
	lines := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		lines[i] = p.String()
	}
	return "the exported tasks break Harbor's rules (nothing was written):\n" + strings.Join(lines, "\n")
}

// Harbor 0.26's name rules: constants.ORG_NAME_PATTERN for [task].name,
// models/task/step_name.py for step names.
var (
	taskNameRE      = lazyre.New(`^[a-zA-Z0-9][a-zA-Z0-9._-]*/[a-zA-Z0-9][a-zA-Z0-9._-]*$`)
	segmentRE       = lazyre.New(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)
	badStepCharRE   = lazyre.New(`[<>:"/\\|?*\x00-\x1f\x7f]`)
	windowsDeviceRE = lazyre.New(`(?i)^(CON|PRN|AUX|NUL|CONIN\$|CONOUT\$|(?:COM|LPT)[1-9¹²³])$`)
)

// rootKeys are task.toml's root-level keys: found inside a table, they were
// written after it, and Harbor reads them as that table's (and drops them).
var rootKeys = []string{"schema_version", "multi_step_reward_strategy", "source"}

// Check applies Harbor's acceptance rules (Task.is_valid_dir and the
// TaskConfig model of Harbor 0.26, and what an exported task needs besides)
// to dir: a task folder, or a folder of them, where every child folder that
// is not a valid task is a problem — Harbor would skip it silently.
func Check(dir string) []Problem {
	if _, err := os.Stat(filepath.Join(dir, TaskFile)); err == nil {
		_, ps := checkTask(dir)
		return ps
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return []Problem{{dir, fmt.Sprintf("cannot read the folder: %v", err)}}
	}
	var out []Problem
	names := map[string]string{}
	n := 0
	for _, e := range entries {
		child := filepath.Join(dir, e.Name())
		if fi, err := os.Stat(child); err != nil || !fi.IsDir() {
			continue // Harbor looks at folders only
		}
		n++
		name, ps := checkTask(child)
		out = append(out, ps...)
		if name == "" {
			continue
		}
		if other, dup := names[name]; dup {
			out = append(out, Problem{filepath.Join(child, TaskFile), fmt.Sprintf("[task].name %q is %s's too; Harbor names trials by it", name, other)})
		}
		names[name] = e.Name()
	}
	if n == 0 {
		out = append(out, Problem{dir, "holds no task folder (and is no task: no " + TaskFile + ")"})
	}
	return out
}

// checkTask checks one task folder; name is its [task].name, "" when it
// has none.
func checkTask(dir string) (name string, out []Problem) {
	add := func(file, format string, a ...any) {
		out = append(out, Problem{file, fmt.Sprintf(format, a...)})
	}
	if !segmentRE().MatchString(filepath.Base(dir)) {
		add(dir, "the folder name is not a safe path segment ([A-Za-z0-9][A-Za-z0-9._-]*)")
	}
	tf := filepath.Join(dir, TaskFile)
	data, err := os.ReadFile(tf)
	if err != nil {
		add(tf, "missing or unreadable (%v): Harbor skips the folder", err)
		return "", out
	}
	var doc map[string]any
	if _, err := toml.Decode(string(data), &doc); err != nil {
		add(tf, "not valid TOML: %v", err)
		return "", out
	}
	name, cfgProblems := checkConfig(doc)
	for _, msg := range cfgProblems {
		add(tf, "%s", msg)
	}
	env := filepath.Join(dir, EnvironmentDir)
	if fi, err := os.Stat(env); err != nil || !fi.IsDir() {
		add(env, "missing: every task needs an environment/ folder")
	} else {
		out = append(out, checkEnvironment(env)...)
	}
	steps := stepNames(doc)
	if len(steps) == 0 {
		out = append(out, checkInstruction(filepath.Join(dir, InstructionFile))...)
		out = append(out, checkTestScript(filepath.Join(dir, TestsDirName, TestScript))...)
	}
	for _, s := range steps {
		if validStepName(s) != "" {
			continue // said by checkConfig
		}
		sd := filepath.Join(dir, StepsDirName, s)
		out = append(out, checkInstruction(filepath.Join(sd, InstructionFile))...)
		stepTest := filepath.Join(sd, TestsDirName, TestScript)
		shared := filepath.Join(dir, TestsDirName, TestScript)
		switch {
		case exists(stepTest):
			out = append(out, checkTestScript(stepTest)...)
		case exists(shared):
			out = append(out, checkTestScript(shared)...)
		default:
			add(sd, "step %q has no test script (%s or %s)", s, filepath.Join(StepsDirName, s, TestsDirName, TestScript), filepath.Join(TestsDirName, TestScript))
		}
		out = append(out, checkContained(dir, sd)...)
	}
	out = append(out, checkContained(dir, filepath.Join(dir, TestsDirName))...)
	out = append(out, checkContained(dir, filepath.Join(dir, "solution"))...)
	return name, out
}

// checkConfig checks task.toml's fields against Harbor's TaskConfig.
func checkConfig(doc map[string]any) (name string, out []string) {
	for table, v := range doc {
		t, ok := v.(map[string]any)
		if !ok {
			continue
		}
		for _, k := range rootKeys {
			if _, in := t[k]; in {
				out = append(out, fmt.Sprintf("%s is inside [%s]: a root key written after a table, which Harbor drops; put it before the first table", k, table))
			}
		}
	}
	if v, ok := doc["schema_version"]; ok {
		if _, str := v.(string); !str {
			out = append(out, "schema_version must be a string")
		}
	}
	if v, ok := doc["multi_step_reward_strategy"]; ok && v != "mean" && v != "final" {
		out = append(out, fmt.Sprintf("multi_step_reward_strategy %v: mean or final", v))
	}
	if v, ok := doc["task"]; ok {
		t, isTable := v.(map[string]any)
		switch n, _ := t["name"].(string); {
		case !isTable:
			out = append(out, "task must be a table")
		case t["name"] == nil:
			out = append(out, "[task] has no name (required when [task] is present)")
		case !taskNameRE().MatchString(n) || strings.Contains(n, ".."):
			out = append(out, fmt.Sprintf("[task].name %q must be org/name of [A-Za-z0-9._-], each half starting with a letter or digit, without '..'", n))
		default:
			name = n
		}
		if d, ok := t["description"]; ok {
			if _, str := d.(string); !str {
				out = append(out, "[task].description must be a string")
			}
		}
	}
	for _, table := range []string{"agent", "verifier"} {
		out = append(out, checkTimeout(doc[table], "["+table+"]")...)
	}
	out = append(out, checkEnvTable(doc["environment"])...)
	if v, ok := doc["steps"]; ok {
		list, isList := v.([]map[string]any)
		if !isList {
			return name, append(out, "steps must be an array of tables ([[steps]])")
		}
		seen := map[string]bool{}
		for i, s := range list {
			n, _ := s["name"].(string)
			if msg := validStepName(n); msg != "" {
				out = append(out, fmt.Sprintf("[[steps]] %d: %s", i+1, msg))
			}
			if key := strings.ToLower(n); seen[key] {
				out = append(out, fmt.Sprintf("[[steps]] %d: the name %q is taken (names are compared without case)", i+1, n))
			} else {
				seen[key] = true
			}
			out = append(out, checkTimeout(s["agent"], fmt.Sprintf("[[steps]] %d agent", i+1))...)
			out = append(out, checkTimeout(s["verifier"], fmt.Sprintf("[[steps]] %d verifier", i+1))...)
		}
	}
	return name, out
}

func checkTimeout(v any, where string) []string {
	t, ok := v.(map[string]any)
	if v == nil {
		return nil
	}
	if !ok {
		return []string{where + " must be a table"}
	}
	switch ts := t["timeout_sec"].(type) {
	case nil, int64, float64:
		if f, isFloat := ts.(float64); isFloat && f < 0 || ts != nil && !isFloat && ts.(int64) < 0 {
			return []string{where + ".timeout_sec must not be negative"}
		}
		return nil
	default:
		return []string{fmt.Sprintf("%s.timeout_sec must be a bare number, got %T %v", where, ts, ts)}
	}
}

func checkEnvTable(v any) []string {
	if v == nil {
		return []string{"no [environment]: an exported task names its docker_image and workdir"}
	}
	t, ok := v.(map[string]any)
	if !ok {
		return []string{"environment must be a table"}
	}
	var out []string
	if img, _ := t["docker_image"].(string); strings.TrimSpace(img) == "" {
		out = append(out, "[environment].docker_image is not set: Harbor would build environment/Dockerfile, which an exported task never has")
	}
	if w, ok := t["workdir"]; ok {
		ws, _ := w.(string)
		if !workdirRE().MatchString(ws) || strings.Contains(ws, "..") {
			out = append(out, fmt.Sprintf("[environment].workdir %q must be an absolute path of [A-Za-z0-9/_.-] (it goes into shell command lines)", ws))
		}
	}
	if e, ok := t["env"]; ok {
		m, isMap := e.(map[string]any)
		if !isMap {
			return append(out, "[environment].env must be a table of strings")
		}
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if _, str := m[k].(string); !str {
				out = append(out, fmt.Sprintf("[environment].env.%s must be a string", k))
			}
		}
	}
	return out
}

// validStepName is Harbor's validate_step_name: "" when name is valid.
func validStepName(name string) string {
	switch {
	case strings.TrimSpace(name) == "", name == ".", name == "..", strings.HasSuffix(name, "."), strings.HasSuffix(name, " "),
		badStepCharRE().MatchString(name):
		return fmt.Sprintf("step name %q must be a portable folder name (no separators, control or reserved characters, trailing dot or space)", name)
	case windowsDeviceRE().MatchString(strings.TrimRight(strings.SplitN(name, ".", 2)[0], " ")):
		return fmt.Sprintf("step name %q is a Windows device name", name)
	case len(name) > 255:
		return fmt.Sprintf("step name %q is longer than 255 bytes", name)
	}
	return ""
}

func stepNames(doc map[string]any) []string {
	list, _ := doc["steps"].([]map[string]any)
	var out []string
	for _, s := range list {
		n, _ := s["name"].(string)
		out = append(out, n)
	}
	return out
}

// checkEnvironment: no file that switches Harbor to building an image, no
// link (an upload drops or follows it).
func checkEnvironment(env string) []Problem {
	var out []Problem
	for _, n := range []string{"Dockerfile", "docker-compose.yaml", "docker-compose.yml"} {
		if p := filepath.Join(env, n); existsL(p) {
			out = append(out, Problem{p, "switches Harbor from the image to building one; an exported environment never holds it"})
		}
	}
	_ = filepath.Walk(env, func(p string, fi os.FileInfo, err error) error {
		if err == nil && fi.Mode()&os.ModeSymlink != 0 {
			out = append(out, Problem{p, "is a symbolic link; an upload to the container drops or follows it"})
		}
		return nil
	})
	return out
}

// checkInstruction: present, readable text, and not starting with a line
// Harbor strips as a canary.
func checkInstruction(p string) []Problem {
	b, err := os.ReadFile(p)
	if err != nil {
		return []Problem{{p, fmt.Sprintf("missing or unreadable (%v): Harbor skips the task", err)}}
	}
	if !utf8.Valid(b) {
		return []Problem{{p, "is not UTF-8 text"}}
	}
	first, _, _ := strings.Cut(strings.TrimLeft(string(b), "\n"), "\n")
	if canaryRE().MatchString(strings.TrimSpace(first)) {
		return []Problem{{p, fmt.Sprintf("starts with %q, which Harbor strips as a canary line", first)}}
	}
	if len(bytes.TrimSpace(b)) == 0 {
		return []Problem{{p, "is empty"}}
	}
	return nil
}

// checkTestScript: a regular file with a shebang, executable.
func checkTestScript(p string) []Problem {
	fi, err := os.Lstat(p)
	if err != nil {
		return []Problem{{p, "missing: Harbor skips a task without its test script"}}
	}
	if !fi.Mode().IsRegular() {
		return []Problem{{p, "is not a regular file"}}
	}
	var out []Problem
	if b, err := os.ReadFile(p); err != nil || !bytes.HasPrefix(b, []byte("#!")) {
		out = append(out, Problem{p, "has no #! line; Harbor executes it directly"})
	}
	if fi.Mode().Perm()&0o111 != 0o111 {
		out = append(out, Problem{p, fmt.Sprintf("has mode %#o; it must be 0755", fi.Mode().Perm())})
	}
	return out
}

// checkContained: Harbor refuses a task whose inputs (tests/, solution/,
// steps/<name>/) lead out of the task folder by a link.
func checkContained(task, dir string) []Problem {
	root, err := filepath.EvalSymlinks(task)
	if err != nil {
		return nil
	}
	var out []Problem
	_ = filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err != nil || fi.Mode()&os.ModeSymlink == 0 {
			return nil
		}
		real, rerr := filepath.EvalSymlinks(p)
		if rel, err := filepath.Rel(root, real); rerr != nil || err != nil || rel == ".." || strings.HasPrefix(rel, "../") {
			out = append(out, Problem{p, "is a link that leads out of the task folder; Harbor refuses the task"})
		}
		return nil
	})
	return out
}

func existsL(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}

// CountTasks is how many tasks dir holds: 1 when it is a task, else its
// child folders with a task.toml.
func CountTasks(dir string) int {
	if exists(filepath.Join(dir, TaskFile)) {
		return 1
	}
	entries, _ := os.ReadDir(dir)
	n := 0
	for _, e := range entries {
		if exists(filepath.Join(dir, e.Name(), TaskFile)) {
			n++
		}
	}
	return n
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
