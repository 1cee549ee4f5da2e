package bunstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"strings"
	"time"

	"github.com/bwcms/cms/cms"
)

type accountRow struct {
	ID    string `bun:"id"`
	Lang  string `bun:"lang"`
	Langs string `bun:"langs"` // comma-separated, in order
}

func (r accountRow) account() (cms.Account, error) {
	langs, err := cms.NewLanguages(r.Lang, strings.Split(r.Langs, ",")...)
	if err != nil {
		return cms.Account{}, &cms.Error{Code: cms.CodeInternal, Message: "stored account unreadable", Err: err}
	}
	return cms.Account{ID: r.ID, Langs: langs}, nil
}

// CreateAccount implements cms.Store.
func (s *Store) CreateAccount(ctx context.Context, a cms.Account) error {
	n, err := s.exec(ctx, "INSERT INTO accounts (id, lang, langs) VALUES (?, ?, ?) ON CONFLICT (id) DO NOTHING",
		a.ID, a.Langs.Default, strings.Join(a.Langs.All, ","))
	if err == nil && n == 0 {
		err = conflict("account " + a.ID + " exists")
	}
	return err
}

// GetAccount implements cms.Store.
// Every authorized request reads its account (its languages of now):
// scanned by position, half the CPU of bun's scan by struct tags.
func (s *Store) GetAccount(ctx context.Context, id string) (cms.Account, error) {
	var row accountRow
	found := false
	err := s.queryEach(s.pointContext(ctx), s.read, "SELECT id, lang, langs FROM accounts WHERE id = ?", []any{id}, func(rows *sql.Rows) error {
		found = true
		return rows.Scan(&row.ID, &row.Lang, &row.Langs)
	})
	if err != nil {
		return cms.Account{}, s.fail(err)
	}
	if !found {
		return cms.Account{}, notFound("account " + id)
	}
	return row.account()
}

// ListAccounts implements cms.Store.
func (s *Store) ListAccounts(ctx context.Context) ([]cms.Account, error) {
	var rows []accountRow
	if err := s.scan(ctx, s.read, &rows, "SELECT id, lang, langs FROM accounts ORDER BY id"); err != nil {
		return nil, s.fail(err)
	}
	accounts := make([]cms.Account, 0, len(rows))
	for _, r := range rows {
		a, err := r.account()
		if err != nil {
			return nil, err
		}
		accounts = append(accounts, a)
	}
	return accounts, nil
}

// UpdateAccount implements cms.Store.
func (s *Store) UpdateAccount(ctx context.Context, a cms.Account) error {
	return s.tx(ctx, func(s *Store) error {
		// The row is held first (Options.DeleteLock: FOR UPDATE): it waits
		// for the writers of terms that read the languages
		// (Options.ShareLock), so the terms below see what they wrote,
		// and writers after it read the new languages.
		before, err := s.termLanguages(ctx, a.ID, s.opts.DeleteLock)
		if err != nil {
			return err
		}
		n, err := s.exec(ctx, "UPDATE accounts SET lang = ?, langs = ? WHERE id = ?",
			a.Langs.Default, strings.Join(a.Langs.All, ","), a.ID)
		if err == nil && n == 0 {
			err = notFound("account " + a.ID)
		}
		if err != nil {
			return err
		}
		return s.languageTerms(ctx, a.ID, before, a.Langs.All)
	})
}

type userRow struct {
	Name         string `bun:"name"`
	Account      string `bun:"account"`
	PasswordHash string `bun:"password_hash"`
	Perms        string `bun:"perms"` // JSON array, in stored order
	Disabled     bool   `bun:"disabled"`
	ChangedAt    int64  `bun:"changed_at"`
	CreatedAt    int64  `bun:"created_at"` // 0: made before this was kept
}

func (r userRow) user() (cms.User, error) {
	u := cms.User{Name: r.Name, Account: r.Account, PasswordHash: r.PasswordHash, Disabled: r.Disabled,
		Changed: fromMicros(r.ChangedAt)}
	if r.CreatedAt != 0 {
		u.Created = fromMicros(r.CreatedAt)
	}
	if err := json.Unmarshal([]byte(r.Perms), &u.Perms); err != nil {
		return cms.User{}, &cms.Error{Code: cms.CodeInternal, Message: "stored user unreadable", Err: err}
	}
	return u, nil
}

func permsJSON(perms []string) string {
	if perms == nil {
		perms = []string{}
	}
	b, _ := json.Marshal(perms) // a []string always marshals
	return string(b)
}

// CreateUser implements cms.Store.
func (s *Store) CreateUser(ctx context.Context, u cms.User) error {
	return s.tx(ctx, func(s *Store) error {
		if _, err := s.GetAccount(ctx, u.Account); err != nil {
			return err
		}
		var created int64
		if !u.Created.IsZero() {
			created = micros(u.Created)
		}
		n, err := s.exec(ctx, "INSERT INTO users (name, account, password_hash, perms, disabled, changed_at, created_at) "+
			"VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (name) DO NOTHING",
			u.Name, u.Account, u.PasswordHash, permsJSON(u.Perms), u.Disabled, micros(u.Changed), created)
		if err == nil && n == 0 {
			err = conflict("user " + u.Name + " exists")
		}
		return err
	})
}

const userColumns = "name, account, password_hash, perms, disabled, changed_at, created_at"

// GetUser implements cms.Store.
func (s *Store) GetUser(ctx context.Context, name string) (cms.User, error) {
	var rows []userRow
	if err := s.scan(ctx, s.read, &rows, "SELECT "+userColumns+" FROM users WHERE name = ?", name); err != nil {
		return cms.User{}, s.fail(err)
	}
	if len(rows) == 0 {
		return cms.User{}, notFound("user " + name)
	}
	return rows[0].user()
}

// UpdateUser implements cms.Store.
func (s *Store) UpdateUser(ctx context.Context, u cms.User) error {
	n, err := s.exec(ctx, "UPDATE users SET password_hash = ?, perms = ?, disabled = ?, changed_at = ? WHERE name = ?",
		u.PasswordHash, permsJSON(u.Perms), u.Disabled, micros(u.Changed), u.Name)
	if err == nil && n == 0 {
		err = notFound("user " + u.Name)
	}
	return err
}

// DeleteUser implements cms.Store.
func (s *Store) DeleteUser(ctx context.Context, name string) error {
	return s.tx(ctx, func(s *Store) error {
		n, err := s.exec(ctx, "DELETE FROM users WHERE name = ?", name)
		if err != nil {
			return err
		}
		if n == 0 {
			return notFound("user " + name)
		}
		_, err = s.exec(ctx, "DELETE FROM login_known_addresses WHERE username = ?", name)
		return err
	})
}

// ListUsers implements cms.Store.
func (s *Store) ListUsers(ctx context.Context, account string) ([]cms.User, error) {
	query, args := "SELECT "+userColumns+" FROM users ORDER BY name", []any{}
	if account != "" {
		query, args = "SELECT "+userColumns+" FROM users WHERE account = ? ORDER BY name", []any{account}
	}
	var rows []userRow
	if err := s.scan(ctx, s.read, &rows, query, args...); err != nil {
		return nil, s.fail(err)
	}
	users := make([]cms.User, 0, len(rows))
	for _, r := range rows {
		u, err := r.user()
		if err != nil {
			return nil, err
		}
		users = append(users, u)
	}
	return users, nil
}

type failureCount struct {
	N      int    `bun:"n"`
	Oldest *int64 `bun:"oldest"`
}

// lockLogin holds username until the transaction ends, so that the
// attempts of one username are decided one at a time on every instance.
func (s *Store) lockLogin(ctx context.Context, username string) error {
	if s.opts.LoginLock == "" {
		return nil
	}
	_, err := s.exec(ctx, s.opts.LoginLock, username)
	return err
}

// ReserveLogin implements cms.Store.
func (s *Store) ReserveLogin(ctx context.Context, a cms.LoginAttempt) (cms.LoginReservation, error) {
	var r cms.LoginReservation
	err := s.tx(ctx, func(s *Store) error {
		if err := s.lockLogin(ctx, a.Username); err != nil {
			return err
		}
		// Old failures are forgotten here, so the table stays small.
		since := micros(a.Since)
		if _, err := s.exec(ctx, "DELETE FROM login_attempts WHERE username = ? AND at < ?", a.Username, since); err != nil {
			return err
		}
		// The pair's failures stop at its limit, so reading them is cheap.
		var pair []int64
		if err := s.scan(ctx, s.write, &pair, "SELECT at FROM login_attempts WHERE username = ? AND address = ? ORDER BY at",
			a.Username, a.Address); err != nil {
			return err
		}
		if n := len(pair); a.AddressLimit > 0 && n >= a.AddressLimit {
			r.HeldBy = fromMicros(pair[n-a.AddressLimit])
		}
		held, err := s.userHeld(ctx, a)
		if err != nil {
			return err
		}
		if held.After(r.HeldBy) {
			r.HeldBy = held
		}
		if !r.HeldBy.IsZero() {
			return nil
		}
		r.Allowed = true
		_, err = s.exec(ctx, "INSERT INTO login_attempts (username, address, at) VALUES (?, ?, ?)",
			a.Username, a.Address, micros(a.At))
		return err
	})
	return r, err
}

// userHeld applies a's user limit: the time of the failure that holds the
// user at the limit, or zero when the attempt passes (under the limit, or
// from a known address).
func (s *Store) userHeld(ctx context.Context, a cms.LoginAttempt) (time.Time, error) {
	var counts []int
	if err := s.scan(ctx, s.write, &counts, "SELECT COUNT(*) FROM login_attempts WHERE username = ?", a.Username); err != nil {
		return time.Time{}, err
	}
	n := 0
	if len(counts) > 0 {
		n = counts[0]
	}
	if a.UserLimit <= 0 || n < a.UserLimit {
		return time.Time{}, nil
	}
	var known []int
	if err := s.scan(ctx, s.write, &known, "SELECT 1 FROM login_known_addresses WHERE username = ? AND address = ? AND at >= ?",
		a.Username, a.Address, micros(a.KnownSince)); err != nil || len(known) > 0 {
		return time.Time{}, err
	}
	var at []int64
	if err := s.scan(ctx, s.write, &at, "SELECT at FROM login_attempts WHERE username = ? ORDER BY at LIMIT 1 OFFSET ?",
		a.Username, n-a.UserLimit); err != nil || len(at) == 0 {
		return time.Time{}, err
	}
	return fromMicros(at[0]), nil
}

// LoginSucceeded implements cms.Store.
func (s *Store) LoginSucceeded(ctx context.Context, username, address string, at time.Time) error {
	return s.tx(ctx, func(s *Store) error {
		if err := s.lockLogin(ctx, username); err != nil {
			return err
		}
		if _, err := s.exec(ctx, "DELETE FROM login_attempts WHERE username = ? AND address = ?", username, address); err != nil {
			return err
		}
		_, err := s.exec(ctx, "INSERT INTO login_known_addresses (username, address, at) VALUES (?, ?, ?) "+
			"ON CONFLICT (username, address) DO UPDATE SET at = excluded.at", username, address, micros(at))
		return err
	})
}

// ReleaseLogin implements cms.Store.
func (s *Store) ReleaseLogin(ctx context.Context, username, address string, at time.Time) error {
	_, err := s.exec(ctx, "DELETE FROM login_attempts WHERE username = ? AND address = ? AND at = ?", username, address, micros(at))
	return err
}

// LoginFailures implements cms.Store.
func (s *Store) LoginFailures(ctx context.Context, username string, since time.Time) (int, time.Time, error) {
	var rows []failureCount
	err := s.scan(ctx, s.read, &rows, "SELECT COUNT(*) AS n, MIN(at) AS oldest FROM login_attempts WHERE username = ? AND at >= ?",
		username, micros(since))
	if err != nil || len(rows) == 0 {
		return 0, time.Time{}, s.fail(err)
	}
	return rows[0].N, fromNullMicros(rows[0].Oldest), nil
}

// ResetLoginFailures implements cms.Store.
func (s *Store) ResetLoginFailures(ctx context.Context, username string) error {
	return s.tx(ctx, func(s *Store) error {
		if err := s.lockLogin(ctx, username); err != nil {
			return err
		}
		_, err := s.exec(ctx, "DELETE FROM login_attempts WHERE username = ?", username)
		return err
	})
}

// PurgeLoginFailures implements cms.Store.
func (s *Store) PurgeLoginFailures(ctx context.Context, before time.Time) (int, error) {
	n, err := s.exec(ctx, "DELETE FROM login_attempts WHERE at < ?", micros(before))
	return int(n), err
}

// PurgeKnownAddresses implements cms.Store.
func (s *Store) PurgeKnownAddresses(ctx context.Context, before time.Time) (int, error) {
	n, err := s.exec(ctx, "DELETE FROM login_known_addresses WHERE at < ?", micros(before))
	return int(n), err
}

// Setting implements cms.Store.
func (s *Store) Setting(ctx context.Context, key string) (string, error) {
	var values []string
	if err := s.scan(ctx, s.read, &values, "SELECT value FROM settings WHERE key = ?", key); err != nil {
		return "", s.fail(err)
	}
	if len(values) == 0 {
		return "", notFound("setting " + key)
	}
	return values[0], nil
}

// InitSetting implements cms.Store.
func (s *Store) InitSetting(ctx context.Context, key, value string) (string, error) {
	var stored string
	err := s.tx(ctx, func(s *Store) error {
		if _, err := s.exec(ctx, "INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO NOTHING", key, value); err != nil {
			return err
		}
		var err error
		stored, err = s.Setting(ctx, key)
		return err
	})
	return stored, err
}
