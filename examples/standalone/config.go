package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/netip"
	"strings"

	"github.com/bwcms/cms/adapters/postgres"
	"github.com/bwcms/cms/adapters/sqlite"
	"github.com/bwcms/cms/cms"
)

// setting is one flag with its environment variable and default.
type setting struct {
	flag, env, def, usage string
}

// settings reads flags mixed with positional arguments (flags may follow
// them: "user add NAME --perms x"); a flag not given falls back to its
// environment variable, then to its default. A setting whose default is
// "false" is a switch: given alone it means true, and it takes its value
// only after "=" (--webhook-allow-private=false).
func settings(e env, name string, args []string, defs []setting) (map[string]string, []string, error) {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	vals := make(map[string]*string, len(defs))
	switches := map[string]bool{}
	for _, d := range defs {
		vals[d.flag] = fs.String(d.flag, "", d.usage)
		switches[d.flag] = d.def == "false"
	}
	var flags, positional []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			positional = append(positional, args[i+1:]...)
			i = len(args)
		case strings.HasPrefix(a, "-") && len(a) > 1 && !strings.Contains(a, "=") && switches[strings.TrimLeft(a, "-")]:
			flags = append(flags, a+"=true")
		case strings.HasPrefix(a, "-") && len(a) > 1:
			flags = append(flags, a)
			if !strings.Contains(a, "=") && i+1 < len(args) {
				flags = append(flags, args[i+1])
				i++
			}
		default:
			positional = append(positional, a)
		}
	}
	if err := fs.Parse(flags); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprintf(e.stdout, "%s flags (each also read from its environment variable):\n", name)
			for _, d := range defs {
				fmt.Fprintf(e.stdout, "  --%s (%s, default %q): %s\n", d.flag, d.env, d.def, d.usage)
			}
			return nil, nil, errHelp
		}
		return nil, nil, err
	}
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	out := make(map[string]string, len(defs))
	for _, d := range defs {
		switch {
		case given[d.flag]:
			out[d.flag] = *vals[d.flag]
		case d.env != "" && e.getenv(d.env) != "":
			out[d.flag] = e.getenv(d.env)
		default:
			out[d.flag] = d.def
		}
	}
	return out, positional, nil
}

// errHelp ends a run that printed its help.
var errHelp = errors.New("help printed")

var dbSetting = setting{"db", "CMS_DB", "sqlite:cms.db", "database: sqlite:PATH or postgres://..."}

// checkDB judges a --db value without opening anything.
func checkDB(db string) error {
	switch {
	case db == "sqlite:":
		return errors.New("--db sqlite: needs a file path (sqlite:cms.db)")
	case strings.HasPrefix(db, "sqlite:"), strings.HasPrefix(db, "postgres://"), strings.HasPrefix(db, "postgresql://"):
		return nil
	}
	return fmt.Errorf("--db %q: want sqlite:PATH or postgres://...", db)
}

// openStore opens the database a --db value names, a PostgreSQL one with
// pg (nil: the defaults); log gets the adapter's warnings (nil: none).
func openStore(ctx context.Context, db string, pg *postgres.Options, log *slog.Logger) (cms.Store, error) {
	if err := checkDB(db); err != nil {
		return nil, err
	}
	if path, ok := strings.CutPrefix(db, "sqlite:"); ok {
		return sqlite.Open(ctx, path, &sqlite.Options{Logger: log})
	}
	return postgres.Open(ctx, db, pg)
}

// parsePrefixes reads comma-separated addresses (one host each) and CIDRs;
// "" is none.
func parsePrefixes(list string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for item := range strings.SplitSeq(list, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		if strings.Contains(item, "/") {
			p, err := netip.ParsePrefix(item)
			if err != nil {
				return nil, fmt.Errorf("%q: want an address or a CIDR", item)
			}
			out = append(out, p.Masked())
			continue
		}
		a, err := netip.ParseAddr(item)
		if err != nil {
			return nil, fmt.Errorf("%q: want an address or a CIDR", item)
		}
		out = append(out, netip.PrefixFrom(a, a.BitLen()))
	}
	return out, nil
}
