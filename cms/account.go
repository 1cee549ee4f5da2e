package cms

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"
)

// Credentials checks who may log in. The default keeps users in the Store;
// a host application with users of its own implements it instead, so it
// needs no second user table.
type Credentials interface {
	// Authenticate checks a username and password at login. A wrong pair
	// or an unknown user is CodeUnauthorized.
	Authenticate(ctx context.Context, username, password string) (Identity, error)
	// Lookup returns the current state of a user, at refresh and to
	// notice a disabled user. CodeNotFound when there is none.
	Lookup(ctx context.Context, username string) (Identity, error)
}

// Identity is what Credentials know of a user.
type Identity struct {
	// Account must name an account of the Store (it gives the languages).
	Account string
	// Perms are the user's permissions, "<kind>:<action>" with "*" for
	// either part (docs/auth.md, Permissions).
	Perms []string
	// Disabled refuses logins and stops the user's tokens.
	Disabled bool
	// Since, when set, is when the user was made: access tokens issued
	// before it were a former user's of the same name and are refused.
	Since time.Time

	// verified is the stored password hash the login checked (users kept
	// in the Store only): the session is made only while it is still the
	// user's, so a password change that commits meanwhile is not missed.
	verified string
}

// NewUser is what CreateUser needs.
type NewUser struct {
	// Name is the username (ValidUsername).
	Name string
	// Account is the id of an existing account.
	Account string
	// Password is MinPasswordLength characters to MaxPasswordLength bytes;
	// only its argon2id hash is stored.
	Password string
	// Perms are the permissions, as Identity.Perms.
	Perms []string
}

// MaxUsernameLength is the longest username.
const MaxUsernameLength = 80

// ValidUsername reports whether name is 1 to 80 characters of A-Z a-z 0-9
// . _ @ -.
func ValidUsername(name string) bool {
	if len(name) == 0 || len(name) > MaxUsernameLength {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '.' || c == '_' || c == '@' || c == '-') {
			return false
		}
	}
	return true
}

func invalid(format string, args ...any) error {
	return &Error{Code: CodeInvalid, Message: fmt.Sprintf(format, args...)}
}

func checkPassword(password string) error {
	if n := len([]rune(password)); n < MinPasswordLength {
		return invalid("password: must be at least %d characters", MinPasswordLength)
	}
	if len(password) > MaxPasswordLength {
		return invalid("password: must be at most %d bytes", MaxPasswordLength)
	}
	return nil
}

// CreateAccount adds an account with its languages. CodeInvalid for an id
// that is not a valid record id; CodeConflict when it exists.
func (s *Service) CreateAccount(ctx context.Context, id string, langs Languages) error {
	if !ValidID(id) {
		return invalid("account id %q: must be 3 to 80 characters of A-Z a-z 0-9 _ -", id)
	}
	langs, err := NewLanguages(langs.Default, langs.All...)
	if err != nil {
		return invalid("account %s: %v", id, err)
	}
	return s.store.CreateAccount(ctx, Account{ID: id, Langs: langs})
}

// Account returns an account. CodeNotFound when there is none.
func (s *Service) Account(ctx context.Context, id string) (Account, error) {
	return s.store.GetAccount(ctx, id)
}

// Accounts lists every account in id order.
func (s *Service) Accounts(ctx context.Context) ([]Account, error) {
	return s.store.ListAccounts(ctx)
}

// CreateUser adds a user kept in the Store. CodeInvalid for a bad name,
// password or permission; CodeNotFound when the account does not exist;
// CodeConflict when the name is taken.
func (s *Service) CreateUser(ctx context.Context, u NewUser) error {
	if !ValidUsername(u.Name) {
		return invalid("username %q: must be 1 to %d characters of A-Z a-z 0-9 . _ @ -", u.Name, MaxUsernameLength)
	}
	if err := checkPassword(u.Password); err != nil {
		return err
	}
	perms := u.Perms
	if perms == nil {
		perms = []string{}
	}
	if err := CheckPerms(perms); err != nil {
		return err
	}
	if _, err := s.store.GetAccount(ctx, u.Account); err != nil {
		return err
	}
	hash, err := s.hasher.hash(ctx, u.Password)
	if err != nil {
		return err
	}
	now := s.Now()
	return s.createUser(ctx, User{Name: u.Name, Account: u.Account, PasswordHash: hash,
		Perms: slices.Clone(perms), Changed: now, Created: now})
}

// createUser stores u with its audit entry, in one transaction.
func (s *Service) createUser(ctx context.Context, u User) error {
	return s.inTx(ctx, func(tx Store) error {
		if err := tx.CreateUser(ctx, u); err != nil {
			return err
		}
		return s.audit(ctx, tx, u.Account, "user.create", u.Name, "perms "+permsText(u.Perms))
	})
}

// User returns a stored user. CodeNotFound when there is none.
func (s *Service) User(ctx context.Context, name string) (User, error) {
	return s.store.GetUser(ctx, name)
}

// Users lists the stored users of an account ("" for every account) in
// name order.
func (s *Service) Users(ctx context.Context, account string) ([]User, error) {
	return s.store.ListUsers(ctx, account)
}

// SetPassword replaces a user's password, revokes every refresh family
// of the user and clears its failed logins (UnlockUser). CodeInvalid for
// a bad password; CodeNotFound for no user.
func (s *Service) SetPassword(ctx context.Context, name, password string) error {
	if err := checkPassword(password); err != nil {
		return err
	}
	hash, err := s.hasher.hash(ctx, password)
	if err != nil {
		return err
	}
	return s.updateUser(ctx, name, func(u *User) error { u.PasswordHash = hash; return nil }, revokeTokens, resetLoginFailures)
}

// SetPerms replaces a user's permissions; they reach the user's tokens at
// the next refresh. CodeInvalid for a bad permission; CodeNotFound for no
// user.
func (s *Service) SetPerms(ctx context.Context, name string, perms []string) error {
	if perms == nil {
		perms = []string{}
	}
	if err := CheckPerms(perms); err != nil {
		return err
	}
	return s.updateUser(ctx, name, func(u *User) error { u.Perms = slices.Clone(perms); return nil })
}

// SetDisabled disables or enables a user. Disabling revokes every refresh
// family of the user, and its access tokens stop working within
// Options.UserRecheck on every instance. CodeNotFound for no user.
func (s *Service) SetDisabled(ctx context.Context, name string, disabled bool) error {
	var then []afterChange
	if disabled {
		then = append(then, revokeTokens)
	}
	err := s.updateUser(ctx, name, func(u *User) error { u.Disabled = disabled; return nil }, then...)
	s.users.forget(name)
	return err
}

// DeleteUser removes a user kept in the Store, with its failed logins and
// the addresses it logged in from. Its refresh tokens are revoked, and its
// access tokens stop as a disabled user's do: at once on this instance,
// within Options.UserRecheck on the others. A user created later with the
// same name starts afresh: tokens issued before it was made are refused
// (User.Created, Identity.Since). CodeNotFound for no user.
func (s *Service) DeleteUser(ctx context.Context, name string) error {
	return s.deleteUser(ctx, name, nil)
}

// deleteUser is DeleteUser after check, when not nil, accepts the user
// as stored, in the transaction.
func (s *Service) deleteUser(ctx context.Context, name string, check func(User) error) error {
	err := s.inTx(ctx, func(tx Store) error {
		u, err := tx.GetUser(ctx, name)
		if err != nil {
			return err
		}
		if check != nil {
			if err := check(u); err != nil {
				return err
			}
		}
		u.Changed = s.Now()
		if err := revokeTokens(ctx, tx, u); err != nil {
			return err
		}
		if err := resetLoginFailures(ctx, tx, u); err != nil {
			return err
		}
		if err := tx.DeleteUser(ctx, name); err != nil {
			return err
		}
		return s.audit(ctx, tx, u.Account, "user.delete", u.Name, "perms "+permsText(u.Perms))
	})
	s.users.forget(name)
	return err
}

// afterChange is what else a change of a user does, in its transaction.
type afterChange func(ctx context.Context, tx Store, u User) error

// revokeTokens revokes every family of u under its token lock, so that
// a rotation in flight either commits first (and its successor is
// revoked here) or finds its token revoked.
func revokeTokens(ctx context.Context, tx Store, u User) error {
	if err := tx.LockUserTokens(ctx, u.Name); err != nil {
		return err
	}
	return tx.RevokeUserTokens(ctx, u.Name, u.Changed)
}

func resetLoginFailures(ctx context.Context, tx Store, u User) error {
	return tx.ResetLoginFailures(ctx, u.Name)
}

// updateUser reads a user, lets change change it (or refuse: its error
// is returned and nothing is stored) and stores it, in one transaction
// with then and the audit entries of what changed.
func (s *Service) updateUser(ctx context.Context, name string, change func(*User) error, then ...afterChange) error {
	return s.inTx(ctx, func(tx Store) error {
		u, err := tx.GetUser(ctx, name)
		if err != nil {
			return err
		}
		before := u
		before.Perms = slices.Clone(u.Perms)
		if err := change(&u); err != nil {
			return err
		}
		u.Changed = s.Now()
		if err := tx.UpdateUser(ctx, u); err != nil {
			return err
		}
		if err := s.auditUser(ctx, tx, before, u); err != nil {
			return err
		}
		for _, do := range then {
			if err := do(ctx, tx, u); err != nil {
				return err
			}
		}
		return nil
	})
}

// storeCredentials checks the users kept in the Store.
type storeCredentials struct{ s *Service }

func (c storeCredentials) Authenticate(ctx context.Context, username, password string) (Identity, error) {
	s := c.s
	u, err := s.store.GetUser(ctx, username)
	if ErrorCode(err) == CodeNotFound {
		// The same work as for a known user, so timing tells nothing.
		if err := s.hasher.burn(ctx, password); err != nil {
			return Identity{}, err
		}
		return Identity{}, errUnauthorized()
	}
	if err != nil {
		return Identity{}, err
	}
	match, rehash, err := s.hasher.check(ctx, u.PasswordHash, password)
	if err != nil {
		return Identity{}, fmt.Errorf("cms: checking the password of %s: %w", username, err)
	}
	if !match {
		return Identity{}, errUnauthorized()
	}
	verified := u.PasswordHash
	if rehash && !u.Disabled {
		if hash, ok := c.rehash(ctx, u, password); ok {
			verified = hash
		}
	}
	return Identity{Account: u.Account, Perms: u.Perms, Disabled: u.Disabled, Since: u.Created, verified: verified}, nil
}

// rehash remakes a hash with the current parameters and reports the hash
// stored (ok false: the user's hash was left as it was). Failing here
// costs nothing but the upgrade, so it is logged, not returned.
func (c storeCredentials) rehash(ctx context.Context, u User, password string) (stored string, ok bool) {
	s := c.s
	hash, err := s.hasher.hash(ctx, password)
	if err == nil {
		err = s.store.WithTx(ctx, func(tx Store) error {
			cur, err := tx.GetUser(ctx, u.Name)
			if err != nil || cur.PasswordHash != u.PasswordHash {
				return err // changed meanwhile: leave it
			}
			cur.PasswordHash = hash
			if err := tx.UpdateUser(ctx, cur); err != nil {
				return err
			}
			stored, ok = hash, true
			return nil
		})
	}
	if err != nil {
		s.log.WarnContext(ctx, "cms: password rehash failed", "user", u.Name, "err", err)
		return "", false
	}
	return stored, ok
}

func (c storeCredentials) Lookup(ctx context.Context, username string) (Identity, error) {
	u, err := c.s.store.GetUser(ctx, username)
	if err != nil {
		return Identity{}, err
	}
	return Identity{Account: u.Account, Perms: u.Perms, Disabled: u.Disabled, Since: u.Created}, nil
}

// userCache remembers for a short while whether a user may act, so a
// request does not read the user every time.
type userCache struct {
	ttl time.Duration
	mu  sync.Mutex
	m   map[string]userState
}

type userState struct {
	account string
	ok      bool
	since   time.Time // Identity.Since
	at      time.Time
}

// maxCachedUsers bounds the cache; past it, it starts over.
const maxCachedUsers = 10000

func newUserCache(ttl time.Duration) *userCache {
	return &userCache{ttl: ttl, m: make(map[string]userState)}
}

func (c *userCache) get(name string, now time.Time) (userState, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	st, ok := c.m[name]
	if !ok || now.Sub(st.at) >= c.ttl || now.Before(st.at) {
		return userState{}, false
	}
	return st, true
}

func (c *userCache) put(name string, st userState) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.m) >= maxCachedUsers {
		clear(c.m)
	}
	c.m[name] = st
}

func (c *userCache) forget(name string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.m, name)
}
