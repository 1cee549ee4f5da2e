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

// Target is what a permission names: a record Kind, or an Area besides the
// records.
type Target interface {
	targetName() string
}

func (k Kind) targetName() string { return string(k) }

// Area is a permission target besides the four record kinds.
type Area string

// The areas.
const (
	// AreaFile is the account's uploaded files and media library.
	AreaFile Area = "file"
	// AreaWebhook is the account's webhooks.
	AreaWebhook Area = "webhook"
	// AreaUser is managing the account's users and languages.
	AreaUser Area = "user"
)

func (a Area) targetName() string { return string(a) }

// Areas lists every area.
func Areas() []Area { return []Area{AreaFile, AreaWebhook, AreaUser} }

// byAnyKind reports whether "*:<action>" (and "*:*") covers t: every kind
// and files, never webhooks or users, which need their own grant (or "*"),
// as they reach beyond the records a user may edit.
func byAnyKind(t Target) bool {
	return t != AreaWebhook && t != AreaUser
}

// Can reports whether p may do action on t (a Kind or an Area).
func (p Principal) Can(t Target, action Action) bool {
	return Allowed(p.Perms, t, action)
}

// Allowed reports whether perms allow action on t (a Kind or an Area):
// "*" allows everything, "<kind>:*" every action on a kind (or area),
// "*:<action>" one action on every kind and files, "<kind>:<action>"
// exactly that.
func Allowed(perms []string, t Target, action Action) bool {
	name := t.targetName()
	for _, perm := range perms {
		if perm == "*" {
			return true
		}
		k, a, ok := strings.Cut(perm, ":")
		if ok && (k == name || k == "*" && byAnyKind(t)) && (a == "*" || a == string(action)) {
			return true
		}
	}
	return false
}

// caller returns the principal of ctx when it may do action on t (a
// Kind or an Area).
func (s *Service) caller(ctx context.Context, t Target, action Action) (Principal, error) {
	p, ok := PrincipalFrom(ctx)
	if !ok {
		return Principal{}, errUnauthorized()
	}
	if !p.Can(t, action) {
		return Principal{}, errForbidden()
	}
	return p, nil
}

// ParsePerms reads a comma-separated permission list ("resource:read,
// map:*"); the empty string is no permission at all. Each entry must be
// "*" or "<kind|area|*>:<action|*>".
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
				perm, targetList())}
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
	kindOK := k == "*" || slices.Contains(Kinds(), Kind(k)) || slices.Contains(Areas(), Area(k))
	actionOK := a == "*" || slices.Contains([]Action{ActionRead, ActionWrite, ActionDelete}, Action(a))
	return kindOK && actionOK
}

// targetList names the kinds and areas a permission may name.
func targetList() string {
	var names []string
	for _, k := range Kinds() {
		names = append(names, string(k))
	}
	for _, a := range Areas() {
		names = append(names, string(a))
	}
	return strings.Join(names, ", ")
}
