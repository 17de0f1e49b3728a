package score

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"unicode/utf8"

	yaml "go.yaml.in/yaml/v3"

	"github.com/agent-eval/agent-eval/internal/config"
	"github.com/agent-eval/agent-eval/internal/results"
	"github.com/agent-eval/agent-eval/internal/rundir"
	"github.com/agent-eval/agent-eval/internal/transcript"
)

// MaxFileBytes bounds one collected file in a record: a longer file is cut
// there (on a rune boundary) and marked truncated. MaxRecordFiles bounds
// how many files one case contributes.
// MaxRecordBytes bounds all of a case's file text: past it, a file is
// listed as {_omitted, path, name, size} instead of read.
const (
	MaxFileBytes   = 256 << 10
	MaxRecordFiles = 500
	MaxRecordBytes = 8 << 20
)

// Record is everything a judge knows about one case, read from the run
// directory (and the case's folder in the dataset). Outputs is the same
// record as upstream's `outputs` dict, which check, expr, exec and LLM
// judges see; the typed fields serve the builtin judges.
type Record struct {
	CaseID string
	// Attempt is which attempt of the case the record is (1 and up).
	Attempt int
	// Files are the collected output files (outputs/<path>/… relative to
	// the outputs folder) and the agent's other changes (_modified/<rel>),
	// name → text; a binary file maps to {_binary, path, name}.
	Files map[string]any
	// Modified are the _modified/ files alone, rel → text.
	Modified map[string]any
	// Annotations is the case's annotations.yaml; Input its input.yaml.
	Annotations map[string]any
	Input       map[string]any
	// Events are the case's transcript; ToolCalls pairs each call with its
	// result.
	Events    []transcript.Event
	ToolCalls []ToolCall
	// Result is the case's run_result.json (nil when missing).
	Result *results.Case
	// Denials are the permission denials (run_result's, and the hook's deny
	// decisions); Decisions every hook ledger line.
	Denials   []Denial
	Decisions []rundir.Decision
	Answers   []results.Answer
	// Violations are what the case's agent tried that its world refused
	// (as run_result.json recorded them, else counted from its files).
	Violations *results.Violations
	// Outputs is upstream's outputs dict, plus our fields.
	Outputs map[string]any
	bytes   int64 // file text read so far
	dir     rundir.Dir
	// key is the record's folder in the run: the case id, or an attempt's
	// rundir.AttemptKey.
	key string
	// filesErr says which files the record could not read: the case's
	// verdicts are errors, not judged on fewer files.
	filesErr error
	// traces are eval.yaml's traces: switches, what of the case the
	// judges may read; stdout and stderr the case's logs, when they may.
	traces         config.TraceSwitches
	stdout, stderr *string
}

// ForStep is the record a judge with step: id sees: the step's events,
// tool calls, denials, conversation and metrics; files and annotations
// stay whole-case (as upstream scopes them).
func (r *Record) ForStep(step string) *Record {
	s := &Record{CaseID: r.CaseID, Attempt: r.Attempt, Files: r.Files, Modified: r.Modified, Annotations: r.Annotations, Input: r.Input,
		Decisions: r.Decisions, Answers: r.Answers, Violations: r.Violations, dir: r.dir, key: r.key, traces: r.traces, stdout: r.stdout, stderr: r.stderr}
	for _, e := range r.Events {
		if e.Step == step {
			s.Events = append(s.Events, e)
		}
	}
	if r.Result != nil {
		for _, sc := range r.Result.Steps {
			if sc != nil && (sc.CaseID == r.CaseID+"/"+step || sc.CaseID == r.folder()+"/"+step || sc.CaseID == step) {
				s.Result = sc
			}
		}
	}
	s.joinCalls()
	s.collectDenials()
	o := make(map[string]any, len(r.Outputs))
	for k, v := range r.Outputs {
		o[k] = v
	}
	for _, k := range []string{"exit_code", "status", "duration_s", "cost_usd", "num_turns", "token_usage", "result"} {
		delete(o, k)
	}
	for k, v := range s.dynamic() {
		o[k] = v
	}
	o["step"] = step
	s.Outputs = o
	return s
}

// ToolCall is one tool call with its result.
type ToolCall struct {
	ID      string          `json:"id"`
	Name    string          `json:"name"`
	Input   json.RawMessage `json:"input"`
	Result  string          `json:"result,omitempty"`
	IsError bool            `json:"is_error,omitempty"`
	// Returned is false when no result came back (the run ended first).
	Returned bool `json:"returned"`
	// Denied is true when the call was denied by a permission rule or the
	// hook.
	Denied bool   `json:"denied,omitempty"`
	Step   string `json:"step,omitempty"`
	// Index is the call's position among the case's calls.
	Index int `json:"index"`
}

// Denial is one denied tool call: by Claude Code's permission rules
// (source "permissions") or by the PreToolUse hook (source "hook", with
// the handler's tier and reason).
type Denial struct {
	ToolUseID string          `json:"tool_use_id,omitempty"`
	Tool      string          `json:"tool"`
	Input     json.RawMessage `json:"input,omitempty"`
	Source    string          `json:"source"`
	Reason    string          `json:"reason,omitempty"`
}

// BuildRecord reads case id of the run in dir (id may be an attempt's
// rundir.AttemptKey). ev (may be nil) locates the case's folder in the
// dataset and the collected outputs' names.
func BuildRecord(dir rundir.Dir, ev *config.Eval, id string) (*Record, error) {
	var caseSrc string
	if ev != nil && ev.DatasetDir() != "" {
		c, _ := rundir.SplitAttempt(id)
		caseSrc = filepath.Join(ev.DatasetDir(), c)
	}
	return buildRecord(dir, ev, id, caseSrc)
}

// folder is the record's folder key in the run.
func (r *Record) folder() string { return cmp.Or(r.key, r.CaseID) }

// buildRecord is BuildRecord with the case's folder in the dataset at
// caseSrc ("" when there is none).
func buildRecord(dir rundir.Dir, ev *config.Eval, id, caseSrc string) (*Record, error) {
	caseID, attempt := rundir.SplitAttempt(id)
	r := &Record{CaseID: caseID, Attempt: attempt, key: id, Files: map[string]any{}, Modified: map[string]any{}, Annotations: map[string]any{}, Input: map[string]any{}, dir: dir,
		traces: ev.TraceSwitches()}
	c, err := dir.ReadCase(id)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("build the record of %s: %w", id, err)
	}
	r.Result = c
	if err := r.readFiles(dir, id); err != nil {
		return nil, err
	}
	batch, err := dir.ReadBatchAssignment()
	if err != nil {
		return nil, fmt.Errorf("build the record of %s: %w", id, err)
	}
	// A case of a batch run was done by the batch's one agent run: its
	// events, hook decisions and logs are the batch's.
	logs := dir.CaseFolder(id)
	if batch.InBatch(id) {
		logs = dir.BatchFolder()
		r.Events, err = dir.ReadBatchTranscript()
		if err == nil {
			r.Decisions, err = dir.ReadBatchLedger()
		}
	} else {
		r.Events, err = dir.ReadTranscript(id)
		if err == nil {
			r.Decisions, err = dir.ReadLedger(id)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("build the record of %s: %w", id, err)
	}
	r.joinCalls()
	r.collectDenials()
	if r.Violations, err = dir.CaseViolations(id, c); err != nil {
		return nil, fmt.Errorf("build the record of %s: %w", id, err)
	}
	if !r.traces.Events {
		// traces.events: false: the judges see no transcript; the denials
		// it held stay (they are the permissions', not the agent's story).
		r.Events, r.ToolCalls = nil, nil
	}
	r.readLogs(logs)
	if c != nil {
		r.Answers = c.AnswerLog
	}
	annText := map[string]string{}
	if caseSrc != "" {
		r.Annotations = readYAMLMap(filepath.Join(caseSrc, "annotations.yaml"))
		r.Input = readYAMLMap(filepath.Join(caseSrc, "input.yaml"))
		annText = annotationFiles(caseSrc, r.Annotations)
	}
	r.Outputs = r.outputsDict(dir, ev, caseSrc, annText)
	return r, nil
}

func (r *Record) readFiles(dir rundir.Dir, id string) error {
	names, err := dir.OutputFiles(id)
	if err != nil {
		return fmt.Errorf("build the record of %s: %w", id, err)
	}
	for _, n := range names {
		if len(r.Files) >= MaxRecordFiles {
			break
		}
		r.Files[n] = r.read(filepath.Join(dir.Outputs(id), filepath.FromSlash(n)), n)
	}
	mod := dir.Modified(id)
	if st, err := os.Lstat(mod); err == nil && !st.IsDir() {
		return nil // a link in its place is not followed, as a walk of it would not
	}
	r.filesErr = r.readModified(mod, os.DirFS(mod))
	return nil
}

// readModified reads the agent's other changes under mod, listed through
// fsys (mod as a file system). A folder that could not be listed is an
// error: the judges would silently see fewer files.
func (r *Record) readModified(mod string, fsys fs.FS) error {
	var errs []error
	_ = fs.WalkDir(fsys, ".", func(rel string, e fs.DirEntry, err error) error {
		if err != nil {
			if rel == "." && errors.Is(err, fs.ErrNotExist) {
				return nil // the agent changed nothing else
			}
			errs = append(errs, fmt.Errorf("read %s: %w", filepath.Join(mod, filepath.FromSlash(rel)), err))
			return nil // the walk goes on past a folder it cannot list
		}
		if !e.Type().IsRegular() || len(r.Files) >= MaxRecordFiles {
			return nil
		}
		top, _, _ := strings.Cut(rel, "/")
		if top == ".work" || top == "subagents" || top == "hooks" {
			return nil
		}
		v := r.read(filepath.Join(mod, filepath.FromSlash(rel)), rel)
		r.Modified[rel] = v
		r.Files[rundir.ModifiedDir+"/"+rel] = v
		return nil
	})
	if len(errs) > 0 {
		return fmt.Errorf("the record of %s misses files: %w", r.CaseID, errors.Join(errs...))
	}
	return nil
}

// readLogs reads the stdout.log and stderr.log of f the traces switches
// let the judges see (each cut at MaxFileBytes); a missing or unreadable
// log is not there.
func (r *Record) readLogs(f rundir.CaseFolder) {
	read := func(p string) *string {
		if fi, err := os.Lstat(p); err != nil || !fi.Mode().IsRegular() {
			return nil
		}
		if t, ok := readBounded(p, filepath.Base(p)).(string); ok {
			return &t
		}
		return nil
	}
	if r.traces.Stdout {
		r.stdout = read(f.Stdout())
	}
	if r.traces.Stderr {
		r.stderr = read(f.Stderr())
	}
}

// read reads a file of the record, within MaxRecordBytes in all.
func (r *Record) read(p, rel string) any {
	fi, err := os.Stat(p)
	if err == nil && r.bytes+min(fi.Size(), MaxFileBytes) > MaxRecordBytes {
		return map[string]any{"_omitted": true, "path": rel, "name": path.Base(rel), "size": fi.Size()}
	}
	v := readBounded(p, rel)
	if s, ok := v.(string); ok {
		r.bytes += int64(len(s))
	}
	return v
}

// readBounded reads a file as text, cut at MaxFileBytes; a file that is
// not UTF-8 becomes upstream's binary marker.
func readBounded(p, rel string) any {
	// Listed as a regular file, it may have been swapped since for a link
	// (to a secret, /dev/zero) or a FIFO: neither is followed or waited on.
	f, err := os.OpenFile(p, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return map[string]any{"_error": err.Error(), "path": rel, "name": path.Base(rel)}
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		return map[string]any{"_error": "not a regular file", "path": rel, "name": path.Base(rel)}
	}
	buf := make([]byte, MaxFileBytes+1)
	n, _ := readFull(f, buf)
	b := buf[:n]
	cut := len(b) > MaxFileBytes
	if cut {
		b = b[:MaxFileBytes]
		for len(b) > 0 && !utf8.RuneStart(b[len(b)-1]) {
			b = b[:len(b)-1]
		}
		if len(b) > 0 {
			b = b[:len(b)-1]
		}
	}
	if !utf8.Valid(b) || strings.ContainsRune(string(b), 0) {
		return map[string]any{"_binary": true, "path": rel, "name": path.Base(rel)}
	}
	if cut {
		return string(b) + "\n[truncated]"
	}
	return string(b)
}

func readFull(f *os.File, buf []byte) (int, error) {
	n := 0
	for n < len(buf) {
		m, err := f.Read(buf[n:])
		n += m
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

// joinCalls pairs tool calls with their results, in transcript order.
func (r *Record) joinCalls() {
	byID := map[string]int{}
	for _, e := range r.Events {
		switch e.Kind {
		case transcript.KindToolCall:
			byID[e.ToolUseID] = len(r.ToolCalls)
			r.ToolCalls = append(r.ToolCalls, ToolCall{ID: e.ToolUseID, Name: e.Tool, Input: e.Input, Step: e.Step, Index: len(r.ToolCalls)})
		case transcript.KindToolResult:
			if i, ok := byID[e.ToolUseID]; ok {
				r.ToolCalls[i].Result, r.ToolCalls[i].IsError, r.ToolCalls[i].Returned = e.Text, e.IsError, true
			}
		case transcript.KindDenial:
			if i, ok := byID[e.ToolUseID]; ok {
				r.ToolCalls[i].Denied = true
			}
		}
	}
}

// collectDenials merges the permission denials of the transcript and
// run_result.json with the hook's deny decisions, once per tool call.
func (r *Record) collectDenials() {
	seen := map[string]bool{}
	add := func(d Denial) {
		key := d.ToolUseID
		if key == "" {
			key = d.Tool + "\x00" + string(d.Input)
		}
		if seen[key] {
			return
		}
		seen[key] = true
		r.Denials = append(r.Denials, d)
	}
	calls := map[string]*ToolCall{}
	for i := range r.ToolCalls {
		calls[r.ToolCalls[i].ID] = &r.ToolCalls[i]
	}
	for _, d := range r.Decisions {
		if d.Decision != "deny" {
			continue
		}
		var in json.RawMessage
		if c := calls[d.ToolUseID]; c != nil {
			in = c.Input
			c.Denied = true
		}
		add(Denial{ToolUseID: d.ToolUseID, Tool: d.Tool, Input: in, Source: "hook", Reason: d.Reason})
	}
	for _, e := range r.Events {
		if e.Kind == transcript.KindDenial {
			add(Denial{ToolUseID: e.ToolUseID, Tool: e.Tool, Input: e.Input, Source: "permissions"})
		}
	}
	if r.Result != nil {
		for _, d := range r.Result.PermissionDenials {
			if c := calls[d.ToolUseID]; c != nil {
				c.Denied = true
			}
			add(Denial{ToolUseID: d.ToolUseID, Tool: d.ToolName, Input: d.ToolInput, Source: "permissions"})
		}
	}
}

func readYAMLMap(p string) map[string]any {
	out := map[string]any{}
	fi, err := os.Lstat(p)
	if err != nil || !fi.Mode().IsRegular() {
		return out
	}
	b, err := os.ReadFile(p)
	if err != nil {
		return out
	}
	var m map[string]any
	if yaml.Unmarshal(b, &m) == nil && m != nil {
		p, _ := plain(m).(map[string]any)
		return p
	}
	return out
}

// plain turns YAML's maps with non-string keys (1: a) into string-keyed
// ones, so every judge kind can take the value as JSON.
func plain(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			x[k] = plain(e)
		}
		return x
	case map[any]any:
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[fmt.Sprint(k)] = plain(e)
		}
		return m
	case []any:
		for i, e := range x {
			x[i] = plain(e)
		}
		return x
	}
	return v
}

// annotationFiles reads the files string annotations name (upstream's
// annotation_<key>_content): short, single-line, relative values naming a
// regular file inside the case's folder (or the dataset beside it).
func annotationFiles(caseSrc string, ann map[string]any) map[string]string {
	out := map[string]string{}
	root := filepath.Dir(caseSrc)
	for k, v := range ann {
		s, ok := v.(string)
		if !ok || s == "" || len(s) >= 256 || strings.ContainsAny(s, "\n\r") || strings.TrimSpace(s) != s || filepath.IsAbs(s) {
			continue
		}
		for _, base := range []string{caseSrc, root} {
			p := filepath.Join(base, filepath.FromSlash(s))
			if rel, err := filepath.Rel(root, p); err != nil || strings.HasPrefix(rel, "..") {
				continue
			}
			fi, err := os.Lstat(p)
			if err != nil || !fi.Mode().IsRegular() {
				continue
			}
			if t, ok := readBounded(p, s).(string); ok {
				out[k] = t
			}
			break
		}
	}
	return out
}

// outputsDict builds upstream's outputs dict (upstream-score-spec §0.2)
// plus the fields upstream keeps from its judges: permission_denials,
// hook_decisions and answers.
func (r *Record) outputsDict(dir rundir.Dir, ev *config.Eval, caseSrc string, annText map[string]string) map[string]any {
	o := r.dynamic()
	o["case_id"], o["case_dir"], o["files"], o["modified_files"] = r.CaseID, dir.Case(r.folder()), r.Files, r.Modified
	o["annotations"], o["input"], o["inputs"] = r.Annotations, r.Input, renderInputs(r.Input)
	o["violations"] = violationsDict(r.Violations)
	if caseSrc != "" {
		o["case_source"] = caseSrc
	}
	for k, t := range annText {
		o["annotation_"+k+"_content"] = t
	}
	// <last path component>_content / _file: the first file directly in
	// each output folder.
	if ev != nil {
		for _, out := range ev.Outputs {
			if out.Path == "" {
				continue
			}
			p := strings.Trim(filepath.ToSlash(out.Path), "/")
			var first string
			for name := range r.Files {
				if strings.HasPrefix(name, p+"/") && !strings.Contains(name[len(p)+1:], "/") && (first == "" || name < first) {
					first = name
				}
			}
			if first != "" {
				key := path.Base(p)
				o[key+"_content"] = r.Files[first]
				o[key+"_file"] = filepath.Join(dir.Outputs(r.folder()), filepath.FromSlash(first))
			}
		}
	}
	return o
}

// dynamic is the part of the outputs dict a step scopes: the transcript
// and the metrics.
func (r *Record) dynamic() map[string]any {
	o := map[string]any{
		"conversation":       r.Conversation(),
		"events":             toAny(r.Events),
		"tool_calls":         toAny(r.ToolCalls),
		"permission_denials": toAny(r.Denials),
		"hook_decisions":     toAny(r.Decisions),
		"answers":            toAny(r.Answers),
	}
	if r.Events == nil {
		o["events"] = []any{}
	}
	if r.ToolCalls == nil {
		o["tool_calls"] = []any{}
	}
	if r.Denials == nil {
		o["permission_denials"] = []any{}
	}
	if r.Decisions == nil {
		o["hook_decisions"] = []any{}
	}
	if r.Answers == nil {
		o["answers"] = []any{}
	}
	if r.stdout != nil {
		o["stdout"] = *r.stdout
	}
	if r.stderr != nil {
		o["stderr"] = *r.stderr
	}
	if c := r.Result; c != nil {
		o["status"] = c.Status
		o["answers_by_tier"] = toAny(c.AnswersByTier)
		o["result"] = c.Result
		// traces.metrics: false keeps upstream's metrics from the judges.
		if r.traces.Metrics {
			o["exit_code"] = c.ExitCode
			o["duration_s"] = c.DurationS
			o["cost_usd"] = c.CostUSD
			o["num_turns"] = c.NumTurns
			o["token_usage"] = toAny(c.TokenUsage)
		}
	}
	return o
}

// Conversation is the agent's visible text, turns joined by a blank line.
// With traces.events off it is stdout.log, when the judges may read that.
func (r *Record) Conversation() string {
	if !r.traces.Events {
		if r.stdout != nil {
			return *r.stdout
		}
		return ""
	}
	var parts []string
	for _, e := range r.Events {
		if e.Kind == transcript.KindText && strings.TrimSpace(e.Text) != "" {
			parts = append(parts, e.Text)
		}
	}
	return strings.Join(parts, "\n\n")
}

// Reasoning is the conversation with the model's visible reasoning
// (thinking) in its place: upstream's {{ reasoning }}.
func (r *Record) Reasoning() string {
	var parts []string
	for _, e := range r.Events {
		if (e.Kind == transcript.KindText || e.Kind == transcript.KindThinking) && strings.TrimSpace(e.Text) != "" {
			parts = append(parts, e.Text)
		}
	}
	return strings.Join(parts, "\n\n")
}

// renderInputs renders input.yaml as upstream does: **key**: value blocks,
// joined by blank lines; maps and lists are written as YAML.
func renderInputs(in map[string]any) string {
	keys := make([]string, 0, len(in))
	for k := range in {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var parts []string
	for _, k := range keys {
		v := in[k]
		switch v.(type) {
		case map[string]any, []any:
			b, _ := yaml.Marshal(v)
			parts = append(parts, fmt.Sprintf("**%s**:\n%s", k, strings.TrimRight(string(b), "\n")))
		default:
			parts = append(parts, fmt.Sprintf("**%s**: %v", k, v))
		}
	}
	return strings.Join(parts, "\n\n")
}

// toAny turns a Go value into plain JSON values (maps, slices, strings,
// float64s, bools), the shape every judge kind sees.
// violationsDict is the case's violations as its judges see them
// (outputs.violations): run_result.json's {total, by_kind, cli_traffic,
// list}, every field there even when it has none.
func violationsDict(v *results.Violations) map[string]any {
	o := map[string]any{"total": 0, "by_kind": map[string]any{}, "cli_traffic": 0, "list": []any{}}
	if v == nil {
		return o
	}
	o["total"], o["cli_traffic"] = v.Total, v.CLITraffic
	if m, ok := toAny(v.ByKind).(map[string]any); ok {
		o["by_kind"] = m
	}
	if l, ok := toAny(v.List).([]any); ok {
		o["list"] = l
	}
	return o
}

func toAny(v any) any {
	b, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	var out any
	_ = json.Unmarshal(b, &out) // Marshal's own output: it decodes
	return out
}
