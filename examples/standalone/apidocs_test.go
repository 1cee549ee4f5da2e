package main

// TestAPIDocs runs the examples of docs/api.md, top to bottom, as one
// session against a new default server, and checks that each answers as
// the document shows. The document's convention, as this test reads it:
//
//   - Only ```sh blocks run; any other block (```json, ...) never does. In
//     a sh block a line starting with "$ " is a command; a command line
//     ending with "\" continues on the next line. The lines after it, up
//     to the next command or the end of the block, are what it prints. A sh
//     block without "$ " lines is an illustration and is not run; a sh
//     block with text before its first "$ " line is an error.
//   - A command is one of
//     curl [-s|-i|-si] [-X METHOD] [-H HEADER]... [-d DATA]... URL
//     NAME=$(curl ... | sed 's/RE/REPLACEMENT/')   (sets $NAME, prints nothing)
//     go run ./examples/standalone ARGS...       (run in process on the server's database)
//     Words are split as a POSIX shell does, with 'single' and "double"
//     quotes, backslashes and $NAME / ${NAME}; an unquoted * ? or [ is an
//     error (shells expand them: quote such URLs). Curl is not needed: the
//     test makes the request itself, as curl would. Several -d are joined
//     with "&" and sent as application/x-www-form-urlencoded; -d without
//     -X is a POST.
//   - http://127.0.0.1:8080 stands for the server's address and the word
//     PASSWORD for the admin's password.
//   - curl -s prints the body only, so its expected output starts with the
//     status line "# 201 Created" (code and text); curl -i prints the
//     status line and headers itself, as they came, then the body.
//   - In expected output, <...> matches any text (lines included) and
//     <NAME> (capital letters, digits, _) matches a value on one line and
//     remembers it; <NAME> in a later command is replaced by that value.
//     Any other text must match exactly (HTML tags such as <p> are
//     lower case, so they are text).
//   - A GET of a batch's status that answers "waiting" or "processing" is
//     asked again until it does not (at most 30 s), as a reader would.

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

const (
	docBase     = "http://127.0.0.1:8080"
	docPassword = "docs-password-1"
)

// docCommand is one "$ " command of docs/api.md with what it prints.
type docCommand struct {
	line int    // of its "$ " line in the document
	text string // the command, continuation lines joined with "\n"
	want []string
}

// docCommands extracts every command of the runnable sh blocks, in order.
func docCommands(doc string) ([]docCommand, error) {
	var cmds []docCommand
	lines := strings.Split(doc, "\n")
	for i := 0; i < len(lines); i++ {
		fence := strings.TrimSpace(lines[i])
		if !strings.HasPrefix(fence, "```") {
			continue
		}
		lang := strings.TrimPrefix(fence, "```")
		start := i
		var block []string
		for i++; i < len(lines) && strings.TrimSpace(lines[i]) != "```"; i++ {
			block = append(block, lines[i])
		}
		if i == len(lines) {
			return nil, fmt.Errorf("line %d: block not closed", start+1)
		}
		if lang != "sh" {
			continue // only sh blocks run
		}
		runnable := false
		for _, l := range block {
			if strings.HasPrefix(l, "$ ") {
				runnable = true
			}
		}
		if !runnable {
			continue // an illustration
		}
		for j := 0; j < len(block); j++ {
			n := start + 2 + j // the line's number in the document
			if !strings.HasPrefix(block[j], "$ ") {
				return nil, fmt.Errorf("line %d: text before the block's first command: %q", n, block[j])
			}
			c := docCommand{line: n, text: strings.TrimPrefix(block[j], "$ ")}
			for strings.HasSuffix(block[j], `\`) {
				j++
				if j == len(block) {
					return nil, fmt.Errorf("line %d: the command continues past the block's end", n)
				}
				c.text += "\n" + block[j]
			}
			for j+1 < len(block) && !strings.HasPrefix(block[j+1], "$ ") {
				j++
				c.want = append(c.want, block[j])
			}
			cmds = append(cmds, c)
		}
	}
	return cmds, nil
}

// shellWords splits a command as a POSIX shell does, for the subset the
// document uses: quotes, backslashes, $NAME and ${NAME}, the operator |.
func shellWords(s string, vars map[string]string) ([]string, error) {
	var words []string
	var w strings.Builder
	inWord := false
	end := func() {
		if inWord {
			words = append(words, w.String())
		}
		w.Reset()
		inWord = false
	}
	expand := func(i int) (int, error) { // s[i] == '$'
		var name string
		j := i + 1
		if j < len(s) && s[j] == '{' {
			k := strings.IndexByte(s[j:], '}')
			if k < 0 {
				return 0, fmt.Errorf("unclosed ${")
			}
			name, j = s[j+1:j+k], j+k+1
		} else {
			for j < len(s) && (s[j] == '_' || s[j] >= 'A' && s[j] <= 'Z' || s[j] >= 'a' && s[j] <= 'z' || s[j] >= '0' && s[j] <= '9') {
				j++
			}
			name = s[i+1 : j]
		}
		v, ok := vars[name]
		if !ok {
			return 0, fmt.Errorf("$%s is not set by an earlier command", name)
		}
		w.WriteString(v)
		inWord = true
		return j, nil
	}
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n':
			end()
			i++
		case c == '\\':
			if i+1 < len(s) && s[i+1] == '\n' {
				i += 2 // a continuation
				continue
			}
			if i+1 < len(s) {
				w.WriteByte(s[i+1])
			}
			inWord = true
			i += 2
		case c == '\'':
			k := strings.IndexByte(s[i+1:], '\'')
			if k < 0 {
				return nil, fmt.Errorf("unclosed '")
			}
			w.WriteString(s[i+1 : i+1+k])
			inWord = true
			i += k + 2
		case c == '"':
			inWord = true
			for i++; ; {
				if i >= len(s) {
					return nil, fmt.Errorf(`unclosed "`)
				}
				if s[i] == '"' {
					i++
					break
				}
				if s[i] == '\\' && i+1 < len(s) && strings.IndexByte("$`\"\\\n", s[i+1]) >= 0 {
					if s[i+1] != '\n' {
						w.WriteByte(s[i+1])
					}
					i += 2
					continue
				}
				if s[i] == '$' {
					j, err := expand(i)
					if err != nil {
						return nil, err
					}
					i = j
					continue
				}
				if s[i] == '`' {
					return nil, fmt.Errorf("backquotes are not supported")
				}
				w.WriteByte(s[i])
				i++
			}
		case c == '$':
			j, err := expand(i)
			if err != nil {
				return nil, err
			}
			i = j
		case c == '|':
			end()
			words = append(words, "|")
			i++
		case strings.IndexByte("*?[", c) >= 0:
			return nil, fmt.Errorf("unquoted %c: a shell may expand it, quote the word", c)
		case strings.IndexByte(";&<>()`#{}", c) >= 0:
			return nil, fmt.Errorf("unquoted %c is not supported", c)
		default:
			w.WriteByte(c)
			inWord = true
			i++
		}
	}
	end()
	return words, nil
}

// curlRequest is a parsed curl command line.
type curlRequest struct {
	include bool
	method  string
	url     string
	headers [][2]string
	data    []string
}

func parseCurl(words []string) (curlRequest, error) {
	var r curlRequest
	if len(words) == 0 || words[0] != "curl" {
		return r, fmt.Errorf("not a curl command")
	}
	silent := false
	for i := 1; i < len(words); i++ {
		w := words[i]
		arg := func() (string, error) {
			if i+1 == len(words) {
				return "", fmt.Errorf("%s needs a value", w)
			}
			i++
			return words[i], nil
		}
		var err error
		switch {
		case w == "-X":
			r.method, err = arg()
		case w == "-H":
			var h string
			h, err = arg()
			name, value, ok := strings.Cut(h, ":")
			if !ok {
				return r, fmt.Errorf("header %q has no colon", h)
			}
			r.headers = append(r.headers, [2]string{strings.TrimSpace(name), strings.TrimSpace(value)})
		case w == "-d":
			var d string
			d, err = arg()
			if strings.HasPrefix(d, "@") {
				return r, fmt.Errorf("-d @file is not supported")
			}
			r.data = append(r.data, d)
		case strings.HasPrefix(w, "-") && len(w) > 1 && strings.Trim(w[1:], "si") == "":
			silent = silent || strings.Contains(w, "s")
			r.include = r.include || strings.Contains(w, "i")
		case strings.HasPrefix(w, "-"):
			return r, fmt.Errorf("curl option %s is not supported", w)
		default:
			if r.url != "" {
				return r, fmt.Errorf("two URLs: %s and %s", r.url, w)
			}
			r.url = w
		}
		if err != nil {
			return r, err
		}
	}
	if !silent {
		return r, fmt.Errorf("curl without -s prints a progress meter: use -s")
	}
	if !strings.HasPrefix(r.url, docBase+"/") {
		return r, fmt.Errorf("the URL %q does not start with %s/", r.url, docBase)
	}
	if r.method == "" {
		r.method = "GET"
		if r.data != nil {
			r.method = "POST"
		}
	}
	return r, nil
}

// recordingConn keeps what it reads, so the test sees the header lines as
// they came, in their order, as curl -i prints them.
type recordingConn struct {
	net.Conn
	read *bytes.Buffer
}

func (c recordingConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	c.read.Write(p[:n])
	return n, err
}

// do sends the request as curl would and returns the status and what
// curl prints (-i: the status line and headers, a blank line, the body).
func (r curlRequest) do(base string) (int, string, error) {
	var body io.Reader
	if r.data != nil {
		body = strings.NewReader(strings.Join(r.data, "&"))
	}
	req, err := http.NewRequest(r.method, base+strings.TrimPrefix(r.url, docBase), body)
	if err != nil {
		return 0, "", err
	}
	req.Header.Set("User-Agent", "curl")
	req.Header.Set("Accept", "*/*")
	if r.data != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	for _, h := range r.headers {
		req.Header.Set(h[0], h[1])
	}
	var raw bytes.Buffer
	tr := &http.Transport{DisableCompression: true,
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			c, err := (&net.Dialer{}).DialContext(ctx, network, addr)
			if err != nil {
				return nil, err
			}
			return recordingConn{c, &raw}, nil
		}}
	defer tr.CloseIdleConnections()
	res, err := (&http.Client{Transport: tr, Timeout: time.Minute}).Do(req)
	if err != nil {
		return 0, "", err
	}
	b, err := io.ReadAll(res.Body)
	res.Body.Close()
	if err != nil {
		return 0, "", err
	}
	if !r.include {
		return res.StatusCode, string(b), nil
	}
	head, _, ok := bytes.Cut(raw.Bytes(), []byte("\r\n\r\n"))
	if !ok {
		return 0, "", fmt.Errorf("no end of headers in %q", raw.String())
	}
	return res.StatusCode, strings.ReplaceAll(string(head), "\r\n", "\n") + "\n\n" + string(b), nil
}

// sedSubstitute applies sed 's/RE/REPLACEMENT/' (a basic regular
// expression, \1...\9 and & in the replacement) to each line of in.
func sedSubstitute(expr, in string) (string, error) {
	if len(expr) < 2 || expr[0] != 's' {
		return "", fmt.Errorf("sed %q: only s/RE/REPLACEMENT/ is supported", expr)
	}
	parts := strings.Split(expr[2:], expr[1:2])
	if len(parts) != 3 || parts[2] != "" {
		return "", fmt.Errorf("sed %q: only s/RE/REPLACEMENT/ without flags is supported", expr)
	}
	var re strings.Builder // the basic regular expression in Go's syntax
	for i := 0; i < len(parts[0]); i++ {
		c := parts[0][i]
		switch {
		case c == '\\' && i+1 < len(parts[0]):
			i++
			if strings.IndexByte("(){}", parts[0][i]) >= 0 {
				re.WriteByte(parts[0][i])
			} else {
				re.WriteString(regexp.QuoteMeta(parts[0][i : i+1]))
			}
		case c == '[':
			k := strings.IndexByte(parts[0][i+2:], ']')
			if k < 0 {
				return "", fmt.Errorf("sed %q: unclosed [", expr)
			}
			re.WriteString(strings.ReplaceAll(parts[0][i:i+3+k], `\`, `\\`))
			i += 2 + k
		case strings.IndexByte("(){}|+?", c) >= 0:
			re.WriteString(regexp.QuoteMeta(string(c)))
		default:
			re.WriteByte(c)
		}
	}
	rx, err := regexp.Compile(re.String())
	if err != nil {
		return "", fmt.Errorf("sed %q: %v", expr, err)
	}
	var out strings.Builder
	for _, l := range strings.SplitAfter(in, "\n") {
		if l == "" {
			continue
		}
		line, nl := strings.CutSuffix(l, "\n")
		m := rx.FindStringSubmatchIndex(line)
		if m == nil {
			out.WriteString(l)
			continue
		}
		out.WriteString(line[:m[0]])
		repl := parts[1]
		for k := 0; k < len(repl); k++ {
			switch {
			case repl[k] == '\\' && k+1 < len(repl) && repl[k+1] >= '1' && repl[k+1] <= '9':
				g := int(repl[k+1] - '0')
				if 2*g+1 >= len(m) {
					return "", fmt.Errorf("sed %q: no group %d", expr, g)
				}
				if m[2*g] >= 0 {
					out.WriteString(line[m[2*g]:m[2*g+1]])
				}
				k++
			case repl[k] == '\\' && k+1 < len(repl):
				out.WriteByte(repl[k+1])
				k++
			case repl[k] == '&':
				out.WriteString(line[m[0]:m[1]])
			default:
				out.WriteByte(repl[k])
			}
		}
		out.WriteString(line[m[1]:])
		if nl {
			out.WriteByte('\n')
		}
	}
	return out.String(), nil
}

var (
	docPlaceholder = regexp.MustCompile(`<\.\.\.>|<[A-Z][A-Z0-9_]*>`)
	docAssignment  = regexp.MustCompile(`(?s)^([A-Za-z_][A-Za-z0-9_]*)=\$\((.*)\)$`)
)

// matchDoc compares what came with what the document shows, placeholders
// included; it returns the values of the new <NAME> placeholders.
func matchDoc(want, got string, vars map[string]string) (map[string]string, bool) {
	var re strings.Builder
	re.WriteString(`^`)
	var names []string
	last := 0
	for _, m := range docPlaceholder.FindAllStringIndex(want, -1) {
		re.WriteString(regexp.QuoteMeta(want[last:m[0]]))
		last = m[1]
		p := want[m[0]:m[1]]
		switch v, ok := vars[p]; {
		case p == "<...>":
			re.WriteString(`(?s:.*?)`)
		case ok:
			re.WriteString(regexp.QuoteMeta(v))
		default:
			re.WriteString(`([^\n]+?)`)
			names = append(names, p)
		}
	}
	re.WriteString(regexp.QuoteMeta(want[last:]) + `$`)
	m := regexp.MustCompile(re.String()).FindStringSubmatch(got)
	if m == nil {
		return nil, false
	}
	found := map[string]string{}
	for i, p := range names {
		if v, ok := found[p]; ok && v != m[i+1] {
			return nil, false // one name, two values
		}
		found[p] = m[i+1]
	}
	return found, true
}

func TestAPIDocs(t *testing.T) {
	t.Parallel()
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "api.md"))
	if err != nil {
		t.Fatal(err)
	}
	cmds, err := docCommands(string(doc))
	if err != nil {
		t.Fatalf("docs/api.md: %v", err)
	}
	if len(cmds) == 0 {
		t.Fatal("docs/api.md: no runnable example found (```sh blocks with \"$ \" command lines)")
	}

	db := "sqlite:" + filepath.Join(t.TempDir(), "cms.db")
	c := &cli{env: map[string]string{"CMS_ADMIN_PASSWORD": docPassword}}
	s := startServer(t, c, "--db", db)

	shellVars := map[string]string{}    // set by NAME=$(...)
	placeholders := map[string]string{} // "<NAME>" -> value
	for _, cmd := range cmds {
		fail := func(format string, args ...any) {
			t.Fatalf("docs/api.md:%d: %s\n$ %s", cmd.line, fmt.Sprintf(format, args...), cmd.text)
		}
		text := docPlaceholder.ReplaceAllStringFunc(cmd.text, func(p string) string {
			v, ok := placeholders[p]
			if !ok {
				fail("%s is not shown by an earlier answer", p)
			}
			return v
		})
		text = strings.ReplaceAll(text, "PASSWORD", docPassword)

		assign := ""
		if m := docAssignment.FindStringSubmatch(text); m != nil {
			assign, text = m[1], m[2]
		}
		words, err := shellWords(text, shellVars)
		if err != nil {
			fail("%v", err)
		}
		var pipe []string
		for i, w := range words {
			if w == "|" {
				words, pipe = words[:i], words[i+1:]
				break
			}
		}
		if assign != "" && (len(pipe) != 2 || pipe[0] != "sed") {
			fail("NAME=$(...) takes one curl command piped into sed 's/RE/REPLACEMENT/'")
		}
		if assign == "" && pipe != nil {
			fail("a pipe is only supported in NAME=$(curl ... | sed ...)")
		}

		var got string
		switch {
		case len(words) >= 3 && words[0] == "go" && words[1] == "run" && words[2] == "./examples/standalone":
			cc := &cli{env: map[string]string{"CMS_DB": db}}
			if code := cc.run(t, words[3:]...); code != 0 {
				fail("exit code %d: %s", code, cc.stderr.String())
			}
			got = strings.TrimSuffix(cc.stdout.String(), "\n")
		case len(words) > 0 && words[0] == "curl":
			r, err := parseCurl(words)
			if err != nil {
				fail("%v", err)
			}
			var status int
			var out string
			for deadline := time.Now().Add(30 * time.Second); ; {
				status, out, err = r.do(s.url)
				if err != nil {
					fail("%v", err)
				}
				if r.method == "GET" && strings.Contains(r.url, "/batch/") && time.Now().Before(deadline) &&
					(strings.Contains(out, `"status":"waiting"`) || strings.Contains(out, `"status":"processing"`)) {
					time.Sleep(20 * time.Millisecond)
					continue
				}
				break
			}
			if assign != "" {
				if status/100 != 2 {
					fail("answered %d %s", status, out)
				}
				v, err := sedSubstitute(pipe[1], out)
				if err != nil {
					fail("%v", err)
				}
				if v = strings.TrimRight(v, "\n"); v == "" || strings.Contains(v, "\n") || v == strings.TrimRight(out, "\n") {
					fail("sed did not pick one value out of %q: %q", out, v)
				}
				shellVars[assign] = v
				if len(cmd.want) != 0 {
					fail("an assignment prints nothing, the document shows %q", cmd.want)
				}
				continue
			}
			out = strings.TrimSuffix(out, "\n")
			if r.include {
				got = out
			} else {
				got = "# " + strconv.Itoa(status) + " " + http.StatusText(status) + "\n" + out
			}
		default:
			fail("not a command the test runs (curl, NAME=$(curl ... | sed ...), go run ./examples/standalone)")
		}

		want := strings.Join(cmd.want, "\n")
		found, ok := matchDoc(strings.TrimRight(want, "\n"), strings.TrimRight(got, "\n"), placeholders)
		if !ok {
			fail("the document shows\n%s\n\nthe server answered\n%s", want, got)
		}
		for p, v := range found {
			placeholders[p] = v
		}
	}
	t.Logf("docs/api.md: %d commands answered as shown", len(cmds))
}

// TestAPIDocsReader: the reader of the document's convention finds the
// commands, their continuations and expected lines, and skips what is not
// to be run.
func TestAPIDocsReader(t *testing.T) {
	t.Parallel()
	doc := "text\n```json\n$ not run\n```\n```sh\nillustration\n```\n```sh\n$ curl -s a \\\n  -d b\n# 200 OK\n{}\n$ curl -s c\n```\n"
	cmds, err := docCommands(doc)
	if err != nil {
		t.Fatal(err)
	}
	if len(cmds) != 2 || cmds[0].line != 9 || cmds[0].text != "curl -s a \\\n  -d b" ||
		strings.Join(cmds[0].want, "|") != "# 200 OK|{}" || cmds[1].line != 13 || cmds[1].want != nil {
		t.Errorf("%+v", cmds)
	}
	if _, err := docCommands("```sh\nsomething\n$ curl -s a\n```\n"); err == nil {
		t.Error("text before the first command was accepted")
	}
	words, err := shellWords(`curl -s 'a b'"$T"x \`+"\n"+`  -H "A: \"$T\"" | sed 's/\(x\)/\1/'`, map[string]string{"T": "t"})
	if err != nil || strings.Join(words, "|") != `curl|-s|a btx|-H|A: "t"|||sed|s/\(x\)/\1/` {
		t.Errorf("%q %v", words, err)
	}
	if _, err := shellWords(`curl http://x/published/*`, nil); err == nil {
		t.Error("an unquoted * was accepted")
	}
	v, err := sedSubstitute(`s/.*"access_token":"\([^"]*\)".*/\1/`, `{"jwt":"a","access_token":"b.c","x":1}`+"\n")
	if err != nil || v != "b.c\n" {
		t.Errorf("sed: %q %v", v, err)
	}
	if found, ok := matchDoc(`{"batchId":"<ID>","at":"<...>"}`, `{"batchId":"3f","at":"2026-01-01 10:00"}`, nil); !ok || found["<ID>"] != "3f" {
		t.Errorf("match: %v %v", found, ok)
	}
	if _, ok := matchDoc(`{"a":"<ID>"}`, `{"a":"2"}`, map[string]string{"<ID>": "1"}); ok {
		t.Error("a known placeholder matched another value")
	}
	if _, ok := matchDoc(`<p>x</p>`, `<p>y</p>`, nil); ok {
		t.Error("lower-case tags are placeholders")
	}
}
