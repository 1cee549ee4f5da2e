package cms

import (
	"encoding/json"
	"math/rand/v2"
	"net/mail"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"
)

// portablePattern returns why pattern may read differently in RE2 (Go,
// the server) and ECMA-262 (a browser or Node validating against the
// schema, with or without the u flag), or "" when it keeps to the syntax
// both read alike: literals of the Basic Multilingual Plane, escapes \xHH
// and of syntax characters, classes without [ inside or ] first, groups
// without (?, quantifiers * + ? {n} {n,} {n,m}, anchors ^ $. Left out:
// . (ECMA-262 stops it at \r, U+2028 and U+2029, RE2 only at \n), \d \s \w
// \b and friends (Unicode-aware in one engine, not the other), POSIX
// classes, flags and look-around (not in RE2), and a counted quantifier
// after a negated class (ECMA-262 without u counts UTF-16 units).
func portablePattern(pattern string) string {
	inClass, classStart, negatedClass := false, false, false
	for i := 0; i < len(pattern); {
		r, size := utf8.DecodeRuneInString(pattern[i:])
		next := pattern[i+size:]
		wasClassStart := classStart
		classStart = false
		switch {
		case r > 0xFFFF:
			return "a character beyond the Basic Multilingual Plane"
		case r == '\\':
			switch {
			case next == "":
				return "a trailing backslash"
			case next[0] == 'x':
				if len(next) < 3 || !isHex(next[1]) || !isHex(next[2]) {
					return `\x without two hex digits`
				}
				size += 3
			case strings.IndexByte(`\^$.*+?()[]{}|/`, next[0]) >= 0 || (inClass && next[0] == '-'):
				size++
			default:
				return "the escape \\" + next[:1]
			}
		case inClass:
			switch {
			case r == '[':
				return "[ inside a class"
			case r == ']' && wasClassStart:
				return "] first in a class"
			case r == '^' && wasClassStart && pattern[i-1] == '[':
				negatedClass, classStart = true, true
			case r == ']':
				inClass = false
				if strings.HasPrefix(next, "{") && negatedClass {
					return "a counted quantifier after a negated class"
				}
			}
		case r == '[':
			inClass, classStart, negatedClass = true, true, false
		case r == '.':
			return ". outside a class"
		case r == '(' && strings.HasPrefix(next, "?"):
			return "(? (flags, look-around or named groups)"
		case r == ']' || r == '}':
			return "an unescaped " + string(r)
		case r == '{':
			m := regexp.MustCompile(`^\{[0-9]+(,[0-9]*)?\}`).FindString(pattern[i:])
			if m == "" {
				return "{ that is not a quantifier"
			}
			size = len(m)
		}
		i += size
	}
	if inClass {
		return "an unclosed class"
	}
	return ""
}

func isHex(c byte) bool {
	return ('0' <= c && c <= '9') || ('a' <= c && c <= 'f') || ('A' <= c && c <= 'F')
}

func TestPortablePatternChecker(t *testing.T) {
	t.Parallel()
	for _, p := range []string{`^a$`, `^[^/\x00-\x20\x7F-` + "\u009F" + `]*$`, `^[a-z\-]{1,3}(\.x)+$`, `^D[1-9][0-9]*$`, `[\]\\]`} {
		if why := portablePattern(p); why != "" {
			t.Errorf("portablePattern(%q) = %q, want portable", p, why)
		}
	}
	for _, p := range []string{`^a.b$`, `\d`, `\s`, `(?i)a`, `(?=a)`, `[[:alpha:]]`, `[]a]`, `a{`, `a}`, `]`, `\-`, "😀", `[^a]{2}`, `[a`, `\x4`} {
		if portablePattern(p) == "" {
			t.Errorf("portablePattern(%q) = portable, want a reason", p)
		}
	}
}

// TestSchemaPatternsPortable checks every pattern of the committed schemas
// and every rule: the server (RE2) and a client (ECMA-262) read them alike.
func TestSchemaPatternsPortable(t *testing.T) {
	t.Parallel()
	seen := map[string]string{}
	for name, r := range rules {
		if r.pattern != nil {
			seen[r.pattern.String()] = "rule " + name
		}
	}
	seen[noNULPattern.String()] = "noNULPattern"
	seen[singleRefPattern.String()] = "singleRefPattern"
	files, err := filepath.Glob(filepath.Join("..", "docs", "schemas", "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("schemas: %v, %d files", err, len(files))
	}
	for _, path := range files {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var doc any
		if err := json.Unmarshal(b, &doc); err != nil {
			t.Fatal(err)
		}
		walkSchema(doc, "", func(pointer string, n schemaNode) {
			if p, ok := n["pattern"].(string); ok {
				seen[p] = filepath.Base(path) + "#" + pointer
			}
		})
	}
	for p, where := range seen {
		if why := portablePattern(p); why != "" {
			t.Errorf("%s: pattern %q: %s", where, p, why)
		}
	}
}

// TestEmailRule: the e-mail rule is net/mail's bare address. Every address
// the rule takes, net/mail reads with no display name; every candidate
// net/mail reads as itself, without the characters that only comments,
// display names and spaces use, the rule takes, IPv6 literals aside (left
// out on purpose). Candidates are built from the characters where the
// grammars could part.
func TestEmailRule(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(3, 4))
	part := func(alphabet string, max int) string {
		chars := []rune(alphabet)
		var b strings.Builder
		for range 1 + r.IntN(max) {
			b.WriteRune(chars[r.IntN(len(chars))])
		}
		return b.String()
	}
	rule := rules["email"]
	accepted := 0
	for range 50000 {
		local := part("aaaaZ09.!#$%&'*+-/=?^_`{|}~", 8)
		if r.IntN(4) == 0 {
			local = part("aaaa.\"\\ ()<>[]:;@,é\t", 6)
		}
		domain := part("aaaab0-", 6) + "." + part("aaaab0-._", 6)
		if r.IntN(4) == 0 {
			domain = part("aaaab0-._[]:é19", 8)
		}
		s := local + "@" + domain
		takes := rule.pattern.MatchString(s) && rule.check(s)
		a, err := mail.ParseAddress(s)
		if takes {
			accepted++
			if err != nil || a.Name != "" {
				t.Errorf("%q: the rule takes it, net/mail reads %v, %v", s, a, err)
			}
			continue
		}
		if err == nil && a.Name == "" && !strings.ContainsAny(s, "()<> \t") && !strings.Contains(s, "@[") {
			t.Errorf("%q: net/mail reads it as a bare address %q, the rule refuses it", s, a.Address)
		}
	}
	if accepted < 1000 {
		t.Fatalf("only %d candidates accepted: the generator no longer exercises the rule", accepted)
	}
}

// matcherCorpus returns strings where the hand-written matchers and the
// patterns could part: every string of the agreement fixtures, and
// candidates built from the characters the patterns treat specially.
func matcherCorpus() []string {
	var list []string
	var collect func(v any)
	collect = func(v any) {
		switch v := v.(type) {
		case string:
			list = append(list, v)
		case []any:
			for _, x := range v {
				collect(x)
			}
		case map[string]any:
			for _, x := range v {
				collect(x)
			}
		}
	}
	for _, f := range agreementFixtures {
		var v any
		if json.Unmarshal([]byte(f.body), &v) == nil {
			collect(v)
		}
	}
	r := rand.New(rand.NewPCG(5, 6))
	pick := func(alphabet []string, max int) string {
		var b strings.Builder
		for range r.IntN(max + 1) {
			b.WriteString(alphabet[r.IntN(len(alphabet))])
		}
		return b.String()
	}
	starts := []string{"http://", "https://", "HTTPS://", "hTtP://", "httpſ://", "ftp://", "http:/", "/", "//", "", "https://u@", "https://a@b@"}
	hosts := []string{"x.org", "X", "[", "]", "[::1]", "[fe80::1%25en0]", "[1.2]", ":", ":80", ":8o", "@", "%41", "é", "a b", "\t", "\x7f", "\u0085", "-", "_", "."}
	paths := []string{"/", "a", ".", "jpg", "JPEG", ".png", ".webp", ".kml", ".KMZ", ".gpx", ".jpe", "?", "#", "/", "x", " ", "\x00", "\u00a0", "\u3000", "\ufeff", "\u2028", "é", "😀", "\xff", "%zz", "@", ":", "\\", "\u202a", "\u202e", "\u2066", "\u2069", "\u202f", "\u2065"}
	for range 60000 {
		list = append(list, pick(starts, 1)+pick(hosts, 3)+pick(paths, 6))
	}
	for range 20000 {
		list = append(list, pick([]string{"a", "Z", "0", ".", "_", "~", ":", "@", "-", "/", " ", "é", "\u00a0", "\u0085", "\x7f", "\xff", "\\", "\u202b", "\u2067", "\u2029"}, 84))
	}
	list = append(list, "", strings.Repeat("a", 80), strings.Repeat("a", 81), "ab", "abc", ".ab")
	// Colours, day labels, dates and times, and near misses.
	for range 20000 {
		list = append(list, pick([]string{"#", "D", "0", "1", "9", "a", "F", "g", "G", "-", ":", " ", "\x00", "é"}, 20))
	}
	list = append(list, "#00aAfF", "#00aAfG", "#00aAf", "#00aAff0", "D1", "D0", "D10", "D", "d1", "2026-11-24",
		"2026-11-24 10:00:00", "2026-11-2410:00:00", "2026-11-24 10:00:0", "2026-1-24", "2026-11-24\n", "a\x00b")
	return list
}

// TestRuleMatchers proves every hand-written matcher equal to its rule's
// pattern, which is the definition and goes to the schema.
func TestRuleMatchers(t *testing.T) {
	t.Parallel()
	corpus := matcherCorpus()
	for name, r := range rules {
		if r.match == nil {
			continue
		}
		for _, s := range corpus {
			if got, want := r.match(s), r.pattern.MatchString(s); got != want {
				t.Errorf("rule %s: match(%q) = %v, pattern says %v", name, s, got, want)
			}
		}
	}
	single := &fieldSpec{typ: typeString, rule: rules["ref"]}
	plain := &fieldSpec{typ: typeString}
	for _, s := range corpus {
		if got, want := single.matches(s), singleRefPattern.MatchString(s); got != want {
			t.Errorf("single reference: matches(%q) = %v, pattern says %v", s, got, want)
		}
		if got, want := plain.matches(s), noNULPattern.MatchString(s); got != want {
			t.Errorf("a string without a rule: matches(%q) = %v, pattern says %v", s, got, want)
		}
	}
}

// TestPlainHTTPURL: every URL the quick check takes, net/url takes too;
// and the quick check does take the common ones.
func TestPlainHTTPURL(t *testing.T) {
	t.Parallel()
	corpus := append(matcherCorpus(), "https://example.org/img/a.jpg?x=1#f", "HTTP://A-B.c:8080", "http://a:", "http://a.b/é?%",
		"http://a/%zz", "http://[::1]/", "http://u@h/", "http://h:8o/", "http://-/", "http://./x", "https://h#", "http://h\\x/")
	for _, s := range corpus {
		if plainHTTPURL(s) && !parsedHTTPURL(s) {
			t.Errorf("plainHTTPURL(%q) takes what net/url refuses", s)
		}
	}
	for _, s := range []string{"https://example.org/img/a.jpg?x=1#f", "http://localhost:8080", "HTTPS://Maps.Example.COM/x/y.kml"} {
		if !plainHTTPURL(s) {
			t.Errorf("plainHTTPURL(%q) = false: the common case is parsed", s)
		}
	}
}

// FuzzRuleMatchers looks for a string on which a hand-written matcher and
// its pattern part.
func FuzzRuleMatchers(f *testing.F) {
	for _, s := range matcherCorpus()[:2000] {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for name, r := range rules {
			if r.match != nil && r.match(s) != r.pattern.MatchString(s) {
				t.Errorf("rule %s: match(%q) = %v, pattern says %v", name, s, r.match(s), !r.match(s))
			}
		}
		if plainHTTPURL(s) && !parsedHTTPURL(s) {
			t.Errorf("plainHTTPURL(%q) takes what net/url refuses", s)
		}
	})
}
