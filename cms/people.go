package cms

import (
	"context"
	"crypto/rand"
	"fmt"
	"slices"
	"time"
)

// The account's users and languages, managed by a user of the account
// (DECISIONS §1): the methods below act as the principal in ctx, as Read
// does, and need its "user" permission (user:read to look, user:write to
// change, user:delete to delete). They reach only the caller's account:
// a user of another account is answered exactly like a missing one. No
// one grants a permission they do not hold, nor manages a user who holds
// one they do not (resetting that user's password would hand them its
// permissions). The operator methods (CreateUser, SetPerms, DeleteUser,
// AddLanguage, ...) check nothing: they serve the command line.

// UserInfo is a user as the account's user managers see it: no password
// hash.
type UserInfo struct {
	Name     string
	Perms    []string
	Disabled bool
	// Created is when the user was made (zero for users made before it
	// was kept); Changed when its password, perms or Disabled last
	// changed.
	Created time.Time
	Changed time.Time
}

func userInfo(u User) UserInfo {
	perms := u.Perms
	if perms == nil {
		perms = []string{}
	}
	return UserInfo{Name: u.Name, Perms: slices.Clone(perms), Disabled: u.Disabled, Created: u.Created, Changed: u.Changed}
}

// NewAccountUser is what CreateAccountUser needs.
type NewAccountUser struct {
	// Name is the username (ValidUsername), unique in the deployment.
	Name string
	// Password is the user's password, MinPasswordLength characters to
	// MaxPasswordLength bytes; empty with GeneratePassword.
	Password string
	// GeneratePassword makes a random password instead, returned once.
	GeneratePassword bool
	// Perms are the permissions, each one the caller holds.
	Perms []string
}

// PasswordReset is the new password of ResetAccountUserPassword: one
// given, or one generated.
type PasswordReset struct {
	Password string
	Generate bool
}

// GeneratedPasswordLength is the length of a generated password: 26
// characters of A-Z and 2-7, 128 random bits.
const GeneratedPasswordLength = 26

// manager returns the principal of ctx when it may do action on the
// account's users.
func (s *Service) manager(ctx context.Context, action Action) (Principal, error) {
	return s.caller(ctx, AreaUser, action)
}

// AccountUsers lists the users of the caller's account in name order.
// Needs user:read. Errors: CodeUnauthorized, CodeForbidden.
func (s *Service) AccountUsers(ctx context.Context) ([]UserInfo, error) {
	p, err := s.manager(ctx, ActionRead)
	if err != nil {
		return nil, err
	}
	users, err := s.store.ListUsers(ctx, p.Account)
	if err != nil {
		return nil, err
	}
	infos := make([]UserInfo, len(users))
	for i, u := range users {
		infos[i] = userInfo(u)
	}
	return infos, nil
}

// AccountUser returns a user of the caller's account. Needs user:read.
// Errors: CodeUnauthorized, CodeForbidden, CodeNotFound (also for a user
// of another account).
func (s *Service) AccountUser(ctx context.Context, name string) (UserInfo, error) {
	p, err := s.manager(ctx, ActionRead)
	if err != nil {
		return UserInfo{}, err
	}
	u, err := s.store.GetUser(ctx, name)
	if err == nil && u.Account != p.Account || ErrorCode(err) == CodeNotFound {
		return UserInfo{}, noSuchUser(name)
	}
	if err != nil {
		return UserInfo{}, err
	}
	return userInfo(u), nil
}

// CreateAccountUser adds a user to the caller's account and returns its
// password when it generated one. Needs user:write, and every permission
// given must be one the caller holds. Errors: CodeUnauthorized;
// CodeForbidden, naming a permission the caller lacks; CodeInvalid for a
// bad name, password or permission (as CreateUser); CodeConflict when the
// name is taken.
func (s *Service) CreateAccountUser(ctx context.Context, u NewAccountUser) (string, error) {
	p, err := s.manager(ctx, ActionWrite)
	if err != nil {
		return "", err
	}
	if !ValidUsername(u.Name) {
		return "", invalid("username %q: must be 1 to %d characters of A-Z a-z 0-9 . _ @ -", u.Name, MaxUsernameLength)
	}
	password, generated, err := newPassword(u.Password, u.GeneratePassword)
	if err != nil {
		return "", err
	}
	perms := u.Perms
	if perms == nil {
		perms = []string{}
	}
	if err := CheckPerms(perms); err != nil {
		return "", err
	}
	auth, err := s.authority(ctx, p)
	if err != nil {
		return "", err
	}
	if err := auth.canGrant(perms); err != nil {
		return "", err
	}
	hash, err := s.hasher.hash(ctx, password)
	if err != nil {
		return "", err
	}
	now := s.Now()
	err = s.createUser(ctx, User{Name: u.Name, Account: p.Account, PasswordHash: hash,
		Perms: slices.Clone(perms), Changed: now, Created: now})
	if ErrorCode(err) == CodeConflict {
		return "", &Error{Code: CodeConflict, Message: fmt.Sprintf("username %q is taken: choose another", u.Name), Err: err}
	}
	if err != nil {
		return "", err
	}
	return generated, nil
}

// SetAccountUserPerms replaces the permissions of a user of the caller's
// account; they reach the user's tokens at its next refresh. Needs
// user:write; the caller must hold every permission the user holds and
// every one given. Callers cannot take away their own user permissions.
// Errors: CodeUnauthorized; CodeInvalid for a bad permission;
// CodeForbidden naming a permission the caller lacks; CodeNotFound;
// CodeConflict for the caller's own user permissions.
func (s *Service) SetAccountUserPerms(ctx context.Context, name string, perms []string) error {
	p, err := s.manager(ctx, ActionWrite)
	if err != nil {
		return err
	}
	if perms == nil {
		perms = []string{}
	}
	if err := CheckPerms(perms); err != nil {
		return err
	}
	auth, err := s.authority(ctx, p)
	if err != nil {
		return err
	}
	if err := auth.canGrant(perms); err != nil {
		return err
	}
	return s.manageUser(ctx, p, auth, name, func(u *User) error {
		if u.Name == p.User {
			for _, a := range allActions {
				if Allowed(u.Perms, AreaUser, a) && !Allowed(perms, AreaUser, a) {
					return &Error{Code: CodeConflict, Message: fmt.Sprintf(
						"you cannot take away your own permission user:%s: another user manager must", a)}
				}
			}
		}
		u.Perms = slices.Clone(perms)
		return nil
	})
}

// ResetAccountUserPassword gives a user of the caller's account a new
// password, given or generated (returned once), ends its sessions and
// clears its failed logins, as SetPassword. Needs user:write and every
// permission the user holds. Errors: CodeUnauthorized; CodeInvalid for a
// bad password; CodeForbidden; CodeNotFound.
func (s *Service) ResetAccountUserPassword(ctx context.Context, name string, r PasswordReset) (string, error) {
	p, err := s.manager(ctx, ActionWrite)
	if err != nil {
		return "", err
	}
	password, generated, err := newPassword(r.Password, r.Generate)
	if err != nil {
		return "", err
	}
	auth, err := s.authority(ctx, p)
	if err != nil {
		return "", err
	}
	// A first look, so that no hash is made for a user the caller
	// cannot reach; the change checks again in its transaction.
	u, err := s.store.GetUser(ctx, name)
	if err == nil {
		err = auth.reach(p, u)
	}
	if ErrorCode(err) == CodeNotFound {
		return "", noSuchUser(name)
	}
	if err != nil {
		return "", err
	}
	hash, err := s.hasher.hash(ctx, password)
	if err != nil {
		return "", err
	}
	err = s.manageUser(ctx, p, auth, name, func(u *User) error {
		u.PasswordHash = hash
		return nil
	}, revokeTokens, resetLoginFailures)
	if err != nil {
		return "", err
	}
	return generated, nil
}

// SetAccountUserDisabled disables or enables a user of the caller's
// account, as SetDisabled: disabling ends its sessions. Needs user:write
// and every permission the user holds. Callers cannot disable
// themselves. Errors: CodeUnauthorized, CodeForbidden, CodeNotFound,
// CodeConflict for the caller.
func (s *Service) SetAccountUserDisabled(ctx context.Context, name string, disabled bool) error {
	p, err := s.manager(ctx, ActionWrite)
	if err != nil {
		return err
	}
	auth, err := s.authority(ctx, p)
	if err != nil {
		return err
	}
	var then []afterChange
	if disabled {
		then = append(then, revokeTokens)
	}
	err = s.manageUser(ctx, p, auth, name, func(u *User) error {
		if disabled && u.Name == p.User {
			return &Error{Code: CodeConflict, Message: "you cannot disable yourself: another user manager must"}
		}
		u.Disabled = disabled
		return nil
	}, then...)
	s.users.forget(name)
	return err
}

// DeleteAccountUser deletes a user of the caller's account, as
// DeleteUser: its refresh tokens are revoked and its access tokens stop.
// Needs user:delete and every permission the user holds. Callers cannot
// delete themselves. Errors: CodeUnauthorized, CodeForbidden,
// CodeNotFound, CodeConflict for the caller.
func (s *Service) DeleteAccountUser(ctx context.Context, name string) error {
	p, err := s.manager(ctx, ActionDelete)
	if err != nil {
		return err
	}
	auth, err := s.authority(ctx, p)
	if err != nil {
		return err
	}
	err = s.deleteUser(ctx, name, func(u User) error {
		if err := auth.reach(p, u); err != nil {
			return err
		}
		if u.Name == p.User {
			return &Error{Code: CodeConflict, Message: "you cannot delete yourself: another user manager must"}
		}
		return nil
	})
	if ErrorCode(err) == CodeNotFound {
		return noSuchUser(name)
	}
	return err
}

// AddAccountLanguage adds lang to the caller's account, as AddLanguage,
// and returns how many records got an alias in it. Needs user:write.
// Adding a language the account has changes nothing but gives an alias
// to records still without one. Errors: CodeUnauthorized, CodeForbidden,
// CodeInvalid for a code that is not two lowercase letters.
func (s *Service) AddAccountLanguage(ctx context.Context, lang string) (int, error) {
	p, err := s.manager(ctx, ActionWrite)
	if err != nil {
		return 0, err
	}
	return s.AddLanguage(ctx, p.Account, lang)
}

// SetAccountDefaultLanguage makes lang, one of the caller's account's
// languages, its default, as SetDefaultLanguage. Needs user:write.
// Errors: CodeUnauthorized, CodeForbidden, CodeInvalid when lang is not
// one of the account's languages.
func (s *Service) SetAccountDefaultLanguage(ctx context.Context, lang string) error {
	p, err := s.manager(ctx, ActionWrite)
	if err != nil {
		return err
	}
	return s.SetDefaultLanguage(ctx, p.Account, lang)
}

// manageUser changes user name of p's account in one transaction, after
// checking that p may manage it: a user of another account is a missing
// one, whatever the store says of it.
func (s *Service) manageUser(ctx context.Context, p Principal, auth authority, name string, change func(*User) error, then ...afterChange) error {
	err := s.updateUser(ctx, name, func(u *User) error {
		if err := auth.reach(p, *u); err != nil {
			return err
		}
		return change(u)
	}, then...)
	if ErrorCode(err) == CodeNotFound {
		return noSuchUser(name)
	}
	return err
}

// reach refuses a user p may not manage: another account's (as a missing
// one), or one who holds a permission p lacks.
func (a authority) reach(p Principal, u User) error {
	if u.Account != p.Account {
		return noSuchUser(u.Name)
	}
	return a.canManage(u)
}

func noSuchUser(name string) error {
	return &Error{Code: CodeNotFound, Message: fmt.Sprintf("user %q: there is no such user in your account", name)}
}

// authority is what a caller may hand out: the permissions of its token
// and, when the caller is a user kept in the Store, its stored ones too
// (both must allow), so that a token issued before the caller lost a
// permission cannot hand it back to anyone, the caller included.
type authority struct {
	token  []string
	stored []string // nil: not a stored user
}

func (s *Service) authority(ctx context.Context, p Principal) (authority, error) {
	a := authority{token: p.Perms}
	u, err := s.store.GetUser(ctx, p.User)
	switch {
	case ErrorCode(err) == CodeNotFound:
	case err != nil:
		return authority{}, err
	case u.Account != p.Account:
		// Another account's user of that name: the caller is not one of
		// the Store's.
	case u.Disabled:
		return authority{}, errUnauthorized()
	default:
		a.stored = u.Perms
		if a.stored == nil {
			a.stored = []string{}
		}
	}
	return a, nil
}

// holds reports whether a allows everything perm allows.
func (a authority) holds(perm string) bool {
	return covers(a.token, perm) && (a.stored == nil || covers(a.stored, perm))
}

// canGrant refuses, naming it, the first of perms the caller lacks.
func (a authority) canGrant(perms []string) error {
	for _, perm := range perms {
		if !a.holds(perm) {
			return &Error{Code: CodeForbidden, Message: fmt.Sprintf(
				"permission %s: you cannot grant a permission you do not hold", perm)}
		}
	}
	return nil
}

// canManage refuses a user who holds a permission the caller lacks.
func (a authority) canManage(u User) error {
	for _, perm := range u.Perms {
		if !a.holds(perm) {
			return &Error{Code: CodeForbidden, Message: fmt.Sprintf(
				"user %s holds %s, which you do not: only a user who holds every permission of theirs can change them", u.Name, perm)}
		}
	}
	return nil
}

var allActions = []Action{ActionRead, ActionWrite, ActionDelete}

// covers reports whether perms allow every action on every kind and area
// that perm allows: "*:read" covers "resource:read", and "resource:*"
// is covered by "resource:read,resource:write,resource:delete".
func covers(perms []string, perm string) bool {
	one := []string{perm}
	for _, t := range targets() {
		for _, a := range allActions {
			if Allowed(one, t, a) && !Allowed(perms, t, a) {
				return false
			}
		}
	}
	return true
}

// targets lists every kind and area.
func targets() []Target {
	var ts []Target
	for _, k := range Kinds() {
		ts = append(ts, k)
	}
	for _, a := range Areas() {
		ts = append(ts, a)
	}
	return ts
}

// newPassword returns the password to set: given, checked as
// CreateUser's, or generated (then returned as generated too).
func newPassword(given string, generate bool) (password, generated string, err error) {
	if !generate {
		return given, "", checkPassword(given)
	}
	if given != "" {
		return "", "", invalid("password: give one or have one generated, not both")
	}
	generated = rand.Text()
	return generated, generated, nil
}
