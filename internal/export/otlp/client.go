package otlp

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/agent-eval/agent-eval/internal/redact"
)

// Retry bounds: a 429, 502, 503 or 504 is tried again up to maxTries in
// all, waiting what Retry-After says (at most maxWait) or a doubling
// backoff, and never past the export's deadline.
const (
	maxTries    = 5
	maxWait     = 30 * time.Second
	firstWait   = 500 * time.Millisecond
	maxBodyEcho = 300
)

// client POSTs OTLP/HTTP protobuf request bodies (wire.go) with
// net/http, retrying what a receiver says is temporary.
type client struct {
	endpoint string
	headers  map[string]string
	http     *http.Client
	// sleep waits d or until ctx ends (a seam for the retry tests).
	sleep func(ctx context.Context, d time.Duration) error

	// red hides what the request's credentials are (the headers' values,
	// the URL's user information) in what the receiver answers, which
	// an error quotes: a receiver may echo the token it refused.
	red *redact.Redactor
}

func newClient(endpoint string, headers map[string]string) *client {
	var creds []string
	for _, v := range headers {
		creds = append(creds, v)
		creds = append(creds, strings.Fields(v)...) // "Bearer X": X alone too
	}
	if u, err := url.Parse(endpoint); err == nil && u.User != nil {
		pw, _ := u.User.Password()
		creds = append(creds, u.User.Username(), pw)
	}
	red := redact.New(nil)
	red.LearnValues(creds...)
	return &client{endpoint: endpoint, headers: headers, http: &http.Client{}, sleep: sleepCtx, red: red}
}

// upload sends one request's body, retrying what a receiver says is
// temporary.
func (c *client) upload(ctx context.Context, body []byte) error {
	wait := firstWait
	for try := 1; ; try++ {
		retryAfter, err := c.once(ctx, body)
		if err == nil {
			return nil
		}
		var temp *temporaryError
		if !errors.As(err, &temp) || try == maxTries {
			return err
		}
		d := wait
		if retryAfter > 0 {
			d = retryAfter
		}
		d = min(d, maxWait)
		if dl, ok := ctx.Deadline(); ok && time.Until(dl) < d {
			return fmt.Errorf("%w (no time left for a retry)", err)
		}
		if serr := c.sleep(ctx, d); serr != nil {
			return err
		}
		wait *= 2
	}
}

// temporaryError is a response worth trying again.
type temporaryError struct{ msg string }

func (e *temporaryError) Error() string { return e.msg }

// once makes one request; a temporary failure's error is a
// *temporaryError, with the Retry-After the receiver asked for.
func (c *client) once(ctx context.Context, body []byte) (time.Duration, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.endpoint, bytes.NewReader(body))
	if err != nil {
		return 0, fmt.Errorf("export the spans to %s: %v", c.where(), scrubURL(err))
	}
	for k, v := range c.headers {
		req.Header.Set(k, v)
	}
	req.Header.Set("Content-Type", "application/x-protobuf")
	resp, err := c.http.Do(req)
	if err != nil {
		// url.Error quotes the URL: name the endpoint ourselves.
		return 0, &temporaryError{fmt.Sprintf("export the spans to %s: %v", c.where(), scrubURL(err))}
	}
	defer resp.Body.Close()
	echo, _ := io.ReadAll(io.LimitReader(resp.Body, maxBodyEcho))
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20))
	if resp.StatusCode/100 == 2 {
		return 0, nil
	}
	msg := fmt.Sprintf("export the spans to %s: %s", c.where(), resp.Status)
	if s := bytes.TrimSpace(echo); len(s) > 0 && printable(s) {
		msg += ": " + c.red.String(string(s))
	}
	switch resp.StatusCode {
	case http.StatusTooManyRequests, http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		return retryAfter(resp.Header.Get("Retry-After")), &temporaryError{msg}
	}
	return 0, errors.New(msg)
}

// where is the endpoint as errors name it: without user information or
// query (either may carry a token).
func (c *client) where() string { return DisplayEndpoint(c.endpoint) }

// DisplayEndpoint is endpoint as it may be printed: without user
// information, query or fragment (any may carry a token).
func DisplayEndpoint(endpoint string) string {
	u, err := url.Parse(endpoint)
	if err != nil {
		return "the OTLP endpoint"
	}
	u.User, u.RawQuery, u.Fragment = nil, "", ""
	return u.String()
}

// scrubURL is a transport error without the URL it quotes.
func scrubURL(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}

// retryAfter parses a Retry-After header: seconds or an HTTP date.
func retryAfter(h string) time.Duration {
	if h == "" {
		return 0
	}
	if s, err := strconv.Atoi(h); err == nil && s >= 0 {
		return time.Duration(s) * time.Second
	}
	if t, err := http.ParseTime(h); err == nil {
		return max(time.Until(t), 0)
	}
	return 0
}

func printable(b []byte) bool {
	for _, c := range b {
		if c < 0x20 && c != '\n' && c != '\t' && c != '\r' || c == 0x7f {
			return false
		}
	}
	return true
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
