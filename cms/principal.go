package cms

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"
)

// Principal is the authenticated caller: the account it acts for, the
// user, the permissions and the account's languages. transport puts it in
// the request context (WithPrincipal); the Service reads it from there.
type Principal struct {
	// Account is the id of the account whose records the caller sees.
	Account string
	// User is the username.
	User string
	// Perms are the permissions, as Identity.Perms; Can checks them.
	Perms []string
	// Langs are the account's languages, which decode and encode records.
	Langs Languages
	// Issued, when set, is when the access token was issued (its iat):
	// CheckPrincipal refuses a token older than its user.
	Issued time.Time
}

type principalKey struct{}

// WithPrincipal returns a context carrying p.
func WithPrincipal(ctx context.Context, p Principal) context.Context {
	return context.WithValue(ctx, principalKey{}, p)
}

// PrincipalFrom returns the principal of ctx, if any.
func PrincipalFrom(ctx context.Context) (Principal, bool) {
	p, ok := ctx.Value(principalKey{}).(Principal)
	return p, ok
}

// Action is what a permission allows on a kind.
type Action string

// The actions a permission names: write covers create, update, clone and
// batch.
const (
	ActionRead   Action = "read"
	ActionWrite  Action = "write"
	ActionDelete Action = "delete"
)

// Can reports whether p may do action on kind.
func (p Principal) Can(kind Kind, action Action) bool {
	return Allowed(p.Perms, kind, action)
}

// Allowed reports whether perms allow action on kind: "*" allows
// everything, "<kind>:*" every action on a kind, "*:<action>" one action on
// every kind, "<kind>:<action>" exactly that.
func Allowed(perms []string, kind Kind, action Action) bool {
	for _, perm := range perms {
		if perm == "*" {
			return true
		}
		k, a, ok := strings.Cut(perm, ":")
		if ok && (k == "*" || k == string(kind)) && (a == "*" || a == string(action)) {
			return true
		}
	}
	return false
}

// caller returns the principal of ctx when it may do action on kind.
func (s *Service) caller(ctx context.Context, kind Kind, action Action) (Principal, error) {
	p, ok := PrincipalFrom(ctx)
	if !ok {
		return Principal{}, errUnauthorized()
	}
	if !p.Can(kind, action) {
		return Principal{}, errForbidden()
	}
	return p, nil
}

// ParsePerms reads a comma-separated permission list ("resource:read,
// map:*"); the empty string is no permission at all. Each entry must be
// "*" or "<kind|*>:<action|*>".
func ParsePerms(list string) ([]string, error) {
	if strings.TrimSpace(list) == "" {
		return []string{}, nil
	}
	perms := strings.Split(list, ",")
	for i := range perms {
		perms[i] = strings.TrimSpace(perms[i])
	}
	if err := CheckPerms(perms); err != nil {
		return nil, err
	}
	return perms, nil
}

// CheckPerms returns a CodeInvalid error naming the first malformed
// permission.
func CheckPerms(perms []string) error {
	for _, perm := range perms {
		if !validPerm(perm) {
			return &Error{Code: CodeInvalid, Message: fmt.Sprintf(
				"permission %q: want *, <kind>:<action>, <kind>:* or *:<action> (kinds %s; actions read, write, delete)",
				perm, kindList())}
		}
	}
	return nil
}

func validPerm(perm string) bool {
	if perm == "*" {
		return true
	}
	k, a, ok := strings.Cut(perm, ":")
	if !ok {
		return false
	}
	kindOK := k == "*" || slices.Contains(Kinds(), Kind(k))
	actionOK := a == "*" || slices.Contains([]Action{ActionRead, ActionWrite, ActionDelete}, Action(a))
	return kindOK && actionOK
}

func kindList() string {
	names := make([]string, 0, 4)
	for _, k := range Kinds() {
		names = append(names, string(k))
	}
	return strings.Join(names, ", ")
}
