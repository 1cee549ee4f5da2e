package testenv

import (
	"context"
	"testing"

	"github.com/bwcms/cms/cms"
)

// Account is a fixture account and its users.
type Account struct {
	Name  string
	Langs cms.Languages
	Users []User
}

// User is a fixture user; Disabled users cannot log in.
type User struct {
	Name     string
	Perms    []string
	Disabled bool
}

// Langs returns the languages of codes, the first the default; it panics
// on a code that is not one, which only a test's typo makes.
func Langs(codes ...string) cms.Languages {
	l, err := cms.NewLanguages(codes[0], codes...)
	if err != nil {
		panic(err)
	}
	return l
}

// CreateAccounts creates the accounts and their users, every user with
// password.
func CreateAccounts(ctx context.Context, svc *cms.Service, password string, accounts ...Account) error {
	for _, a := range accounts {
		if err := svc.CreateAccount(ctx, a.Name, a.Langs); err != nil {
			return err
		}
		if err := CreateUsers(ctx, svc, a.Name, password, a.Users...); err != nil {
			return err
		}
	}
	return nil
}

// CreateUsers creates users of account, every one with password.
func CreateUsers(ctx context.Context, svc *cms.Service, account, password string, users ...User) error {
	for _, u := range users {
		if err := svc.CreateUser(ctx, cms.NewUser{Name: u.Name, Account: account, Password: password, Perms: u.Perms}); err != nil {
			return err
		}
		if u.Disabled {
			if err := svc.SetDisabled(ctx, u.Name, true); err != nil {
				return err
			}
		}
	}
	return nil
}

// NewService returns a service on store with ServiceOptions(clock),
// adjusted by adjust when not nil, and the accounts made with Password;
// it fails the test when anything cannot be made.
func NewService(tb testing.TB, store cms.Store, clock *Clock, adjust func(*cms.Options), accounts ...Account) *cms.Service {
	tb.Helper()
	o := ServiceOptions(clock)
	if adjust != nil {
		adjust(&o)
	}
	svc, err := cms.NewService(store, &o)
	if err != nil {
		tb.Fatal(err)
	}
	if err := CreateAccounts(tb.Context(), svc, Password, accounts...); err != nil {
		tb.Fatal(err)
	}
	return svc
}
