package generate

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
)

// shapeCase reads one generated case, {input: {...}, annotations: {...}};
// problem says why it is not one.
func shapeCase(raw json.RawMessage) (Case, string) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(raw, &top); err != nil || top == nil {
		return Case{}, "not an object"
	}
	in, ok := top["input"]
	if !ok {
		return Case{}, "it has no input"
	}
	var c Case
	if err := json.Unmarshal(in, &c.Input); err != nil || c.Input == nil {
		return Case{}, fmt.Sprintf("its input is not a mapping: %s", clip(in))
	}
	if len(c.Input) == 0 {
		return Case{}, "its input is empty"
	}
	c.Annotations = map[string]any{}
	if a, ok := top["annotations"]; ok && string(a) != "null" {
		if err := json.Unmarshal(a, &c.Annotations); err != nil || c.Annotations == nil {
			return Case{}, fmt.Sprintf("its annotations are not a mapping: %s", clip(a))
		}
	}
	return c, ""
}

func clip(b []byte) string {
	s := string(b)
	if len(s) > 80 {
		s = s[:80] + "…"
	}
	return s
}

// annotationFields are the fields a model sometimes puts in input that
// belong to annotations (what judges check, not what the agent is told).
func isAnnotationField(k string) bool {
	switch k {
	case "category", "difficulty", "severity", "constraint_type", "topic", "correct_approach":
		return true
	}
	return strings.HasPrefix(k, "expected_")
}

// fixMisplaced moves the annotation fields of c's input into its
// annotations (an annotation already set wins) and names those moved.
func fixMisplaced(c Case) []string {
	var moved []string
	for k, v := range c.Input {
		if !isAnnotationField(k) {
			continue
		}
		if _, ok := c.Annotations[k]; !ok {
			c.Annotations[k] = v
		}
		delete(c.Input, k)
		moved = append(moved, k)
	}
	sort.Strings(moved)
	return moved
}

// extractCases finds the JSON array of cases in a model's text answer:
// the whole text, a fenced code block, or the outermost brackets.
func extractCases(text string) ([]json.RawMessage, error) {
	try := func(s string) ([]json.RawMessage, bool) {
		var arr []json.RawMessage
		s = strings.TrimSpace(s)
		if json.Unmarshal([]byte(s), &arr) == nil && arr != nil {
			return arr, true
		}
		var obj struct {
			Cases []json.RawMessage `json:"cases"`
		}
		if bytes.HasPrefix([]byte(s), []byte("{")) && json.Unmarshal([]byte(s), &obj) == nil && obj.Cases != nil {
			return obj.Cases, true
		}
		return nil, false
	}
	if arr, ok := try(text); ok {
		return arr, nil
	}
	parts := strings.Split(text, "```")
	for i := 1; i < len(parts); i += 2 {
		body := parts[i]
		if nl := strings.IndexByte(body, '\n'); nl >= 0 && !strings.ContainsAny(body[:nl], "[{") {
			body = body[nl+1:] // the fence's language tag
		}
		if arr, ok := try(body); ok {
			return arr, nil
		}
	}
	if i, j := strings.IndexByte(text, '['), strings.LastIndexByte(text, ']'); i >= 0 && j > i {
		if arr, ok := try(text[i : j+1]); ok {
			return arr, nil
		}
	}
	preview := text
	if len(preview) > 200 {
		preview = preview[:200] + "…"
	}
	if strings.TrimSpace(preview) == "" {
		return nil, errors.New("it answered with no text")
	}
	return nil, fmt.Errorf("no JSON array of cases in its answer (%d chars): %q", len(text), preview)
}
