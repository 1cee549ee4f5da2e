package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/bwcms/cms/cms"
)

// commands are the subcommands, each with what it does in one line, as
// --help and the usage errors list them.
var commands = []struct{ usage, does string }{
	{"worker [--batch-workers N] [--batch-lease D]", "applies batches without serving HTTP, beside servers with --batch-workers 0"},
	{"account add ID [--langs en,it]", "adds an account; its first language is the default"},
	{"account list", "lists the accounts and their languages"},
	{"account add-lang ID CODE", "adds a language to an account"},
	{"account default-lang ID CODE", "makes one of an account's languages its default"},
	{"user add NAME [--account ID] [--perms P1,P2] [--password P]", "adds a user (account default, perms *)"},
	{"user passwd NAME [--password P]", "sets a user's password and revokes its refresh tokens"},
	{"user perms NAME P1,P2", "replaces a user's permissions (\"\": none)"},
	{"user disable NAME | enable NAME", "stops or allows a user's logins and tokens"},
	{"user unlock NAME", "clears a user's failed-login counts"},
	{"user delete NAME", "deletes a user and revokes its refresh tokens"},
	{"user list [--account ID]", "lists users: name, account, perms, enabled or disabled"},
	{"webhook add URL --user NAME [--account ID] [--events E1,E2] [--secret S]", "adds a webhook acting for a user (events *; prints a secret it made once)"},
	{"webhook list [--account ID]", "lists webhooks: id, account, url, events, user, enabled or disabled (why)"},
	{"webhook remove ID", "removes a webhook and its deliveries"},
}

// usage lists the subcommands of one command (account, user, webhook).
func usage(command string) string {
	var b strings.Builder
	b.WriteString("usage:")
	for _, c := range commands {
		if strings.HasPrefix(c.usage, command+" ") {
			b.WriteString("\n  standalone " + c.usage)
		}
	}
	return b.String()
}

// printCommands lists every subcommand with one line on what it does.
func printCommands(w io.Writer) {
	fmt.Fprintln(w, "commands (each takes --db, or CMS_DB, and lists its flags with --help; they work while the server runs):")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, c := range commands {
		fmt.Fprintf(tw, "  standalone %s\t%s\n", c.usage, c.does)
	}
	tw.Flush()
}

// accountCommand runs the account subcommands.
func accountCommand(ctx context.Context, args []string, e env) error {
	cfg, rest, err := settings(e, "account", args, []setting{dbSetting,
		{"langs", "", "en", "languages, default first"}})
	if err != nil {
		return err
	}
	if len(rest) == 0 {
		return errors.New(usage("account"))
	}
	verb, rest := rest[0], rest[1:]
	want := map[string]int{"add": 1, "list": 0, "add-lang": 2, "default-lang": 2}
	if n, ok := want[verb]; !ok || len(rest) != n {
		return errors.New(usage("account"))
	}
	var langs cms.Languages
	if verb == "add" {
		if langs, err = cms.ParseLanguages(cfg["langs"]); err != nil {
			return fmt.Errorf("--langs: %w", err)
		}
	}
	return withService(ctx, cfg, func(svc *cms.Service) error {
		switch verb {
		case "add":
			if err := svc.CreateAccount(ctx, rest[0], langs); err != nil {
				return err
			}
			fmt.Fprintf(e.stdout, "account %s added (langs %s)\n", rest[0], langs)
		case "list":
			accounts, err := svc.Accounts(ctx)
			if err != nil {
				return err
			}
			for _, a := range accounts {
				fmt.Fprintf(e.stdout, "%s\t%s\n", a.ID, a.Langs)
			}
		case "add-lang":
			made, err := svc.AddLanguage(ctx, rest[0], rest[1])
			if err != nil {
				return err
			}
			acc, err := svc.Account(ctx, rest[0])
			if err != nil {
				return err
			}
			fmt.Fprintf(e.stdout, "account %s: langs %s, %d records given a urlAlias in %s\n", rest[0], acc.Langs, made, rest[1])
		case "default-lang":
			if err := svc.SetDefaultLanguage(ctx, rest[0], rest[1]); err != nil {
				return err
			}
			acc, err := svc.Account(ctx, rest[0])
			if err != nil {
				return err
			}
			fmt.Fprintf(e.stdout, "account %s: langs %s\n", rest[0], acc.Langs)
		}
		return nil
	})
}

// userCommand runs the user subcommands.
func userCommand(ctx context.Context, args []string, e env) error {
	cfg, rest, err := settings(e, "user", args, []setting{dbSetting,
		{"account", "", "", "account id"},
		{"perms", "", "*", "comma-separated permissions; empty: none"},
		{"password", "CMS_USER_PASSWORD", "", "password (else one line of standard input)"}})
	if err != nil {
		return err
	}
	if len(rest) == 0 {
		return errors.New(usage("user"))
	}
	verb, rest := rest[0], rest[1:]
	want := map[string]int{"add": 1, "passwd": 1, "perms": 2, "disable": 1, "enable": 1, "unlock": 1, "delete": 1, "list": 0}
	n, ok := want[verb]
	if !ok || len(rest) != n {
		return errors.New(usage("user"))
	}
	return withService(ctx, cfg, func(svc *cms.Service) error {
		switch verb {
		case "add":
			return userAdd(ctx, svc, rest[0], cfg, e)
		case "passwd":
			password, err := readPassword(cfg, e)
			if err != nil {
				return err
			}
			if err := svc.SetPassword(ctx, rest[0], password); err != nil {
				return err
			}
			fmt.Fprintf(e.stdout, "user %s: password changed, refresh tokens revoked, failed logins cleared\n", rest[0])
		case "perms":
			perms, err := cms.ParsePerms(rest[1])
			if err != nil {
				return err
			}
			if err := svc.SetPerms(ctx, rest[0], perms); err != nil {
				return err
			}
			fmt.Fprintf(e.stdout, "user %s: perms %s\n", rest[0], permsText(perms))
		case "disable", "enable":
			if err := svc.SetDisabled(ctx, rest[0], verb == "disable"); err != nil {
				return err
			}
			fmt.Fprintf(e.stdout, "user %s %sd\n", rest[0], verb)
		case "unlock":
			if err := svc.UnlockUser(ctx, rest[0]); err != nil {
				return err
			}
			fmt.Fprintf(e.stdout, "user %s: failed logins cleared\n", rest[0])
		case "delete":
			if err := svc.DeleteUser(ctx, rest[0]); err != nil {
				return err
			}
			fmt.Fprintf(e.stdout, "user %s deleted, refresh tokens revoked\n", rest[0])
		case "list":
			users, err := svc.Users(ctx, cfg["account"])
			if err != nil {
				return err
			}
			for _, u := range users {
				state := "enabled"
				if u.Disabled {
					state = "disabled"
				}
				fmt.Fprintf(e.stdout, "%s\t%s\t%s\t%s\n", u.Name, u.Account, permsText(u.Perms), state)
			}
		}
		return nil
	})
}

func userAdd(ctx context.Context, svc *cms.Service, name string, cfg map[string]string, e env) error {
	perms, err := cms.ParsePerms(cfg["perms"])
	if err != nil {
		return err
	}
	account := cfg["account"]
	if account == "" {
		account = defaultAccount
	}
	password, err := readPassword(cfg, e)
	if err != nil {
		return err
	}
	if err := svc.CreateUser(ctx, cms.NewUser{Name: name, Account: account, Password: password, Perms: perms}); err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "user %s added to account %s (perms %s)\n", name, account, permsText(perms))
	return nil
}

// readPassword takes --password, else CMS_USER_PASSWORD, else one line of
// standard input.
func readPassword(cfg map[string]string, e env) (string, error) {
	if p := cfg["password"]; p != "" {
		return p, nil
	}
	line, err := bufio.NewReader(e.stdin).ReadString('\n')
	line = strings.TrimRight(line, "\r\n")
	if line == "" {
		if err != nil {
			return "", fmt.Errorf("no password: give --password, CMS_USER_PASSWORD or one line on standard input")
		}
		return "", errors.New("empty password")
	}
	return line, nil
}

func permsText(perms []string) string {
	if len(perms) == 0 {
		return `""`
	}
	return strings.Join(perms, ",")
}

// withService opens the database of cfg for one command.
func withService(ctx context.Context, cfg map[string]string, fn func(*cms.Service) error) error {
	return withServiceOptions(ctx, cfg, nil, fn)
}

// withServiceOptions is withService with the service's options.
func withServiceOptions(ctx context.Context, cfg map[string]string, opts *cms.Options, fn func(*cms.Service) error) error {
	store, err := openStore(ctx, cfg["db"], nil, nil)
	if err != nil {
		return err
	}
	defer store.Close()
	svc, err := cms.NewService(store, opts)
	if err != nil {
		return err
	}
	return describe(fn(svc))
}

// describe makes a library error read well on a terminal: its safe
// message, and the problems it names (a webhook's bad url) where there
// are some.
func describe(err error) error {
	e, ok := errors.AsType[*cms.Error](err)
	if !ok || e.Message == "" {
		return err
	}
	if len(e.Problems) == 0 {
		return errors.New(e.Message)
	}
	problems := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		problems[i] = p.String()
		if !slices.Contains(cms.Kinds(), p.Kind) { // not a record's: a webhook's url, say
			problems[i] = p.Field + ": " + p.Text
		}
	}
	return fmt.Errorf("%s: %s", e.Message, strings.Join(problems, "; "))
}
