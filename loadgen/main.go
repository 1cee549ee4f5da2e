// Command loadgen drives a running CMS server over HTTP and prints what it
// measured: upserts per second, reads per second, batch throughput, and
// the server's peak memory. See docs/load.md.
//
//	go run ./loadgen -password SECRET -scenario upsert -clients 4 -duration 30s
//	go run ./loadgen -password SECRET -scenario read -records 5000
//	go run ./loadgen -password SECRET -scenario batch -size 10000 -record full -pid 12345
//	go run ./loadgen -password SECRET -scenario scale -records 100000 -duration 5s
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/bwcms/cms/cms"
	"github.com/bwcms/cms/internal/scale"
)

// options configure one run. A zero field takes the default its comment
// states.
type options struct {
	// URL is the server's base URL. Default http://127.0.0.1:8080.
	URL string
	// User logs in. Default "admin".
	User string
	// Password is the user's. No default: the flag, else CMS_LOAD_PASSWORD.
	Password string
	// Scenario is upsert, read, batch or scale. Default upsert.
	Scenario string
	// Clients is the number of concurrent clients. Default 2.
	Clients int
	// Duration is how long upsert and read run. Default 10s.
	Duration time.Duration
	// Record is small or full. Default small.
	Record string
	// Prefix starts every id the run writes (1 to 40 characters of
	// A-Z a-z 0-9 . _ ~ : @ -). Default lg-<current time in base 36>;
	// for scale lg-scale<Records>, so that a run finds the set an earlier
	// one stored.
	Prefix string
	// Langs are the account's languages, default first (en,it,de). Default:
	// those of the login token, that is of the user's account.
	Langs string
	// Records is how many records the read scenario creates, and how many
	// Resources the scale scenario's set holds. Default 1000.
	Records int
	// Others is how many Landings, and how many Proposals, the scale
	// scenario's set holds. Default 1000.
	Others int
	// Batches is how many batches the batch scenario submits. Default 1.
	Batches int
	// Size is the number of records of each batch. Default 10000.
	Size int
	// PID, when set, is the server's process id: its RSS before and its
	// peak RSS (VmHWM) after the run are read from /proc/PID/status.
	// Default 0: not read.
	PID int
	// Poll is how often a batch's status is asked. Default 50ms.
	Poll time.Duration
}

// Id prefixes must leave room for the suffixes the scenarios add.
const maxPrefix = 40

// withDefaults fills the zero fields and checks the rest.
func (o options) withDefaults() (options, error) {
	def := func(s *string, v string) {
		if *s == "" {
			*s = v
		}
	}
	def(&o.URL, "http://127.0.0.1:8080")
	def(&o.User, "admin")
	def(&o.Scenario, "upsert")
	def(&o.Record, "small")
	if o.Records == 0 {
		o.Records = 1000
	}
	if o.Scenario == "scale" {
		def(&o.Prefix, "lg-scale"+strconv.Itoa(o.Records))
	}
	def(&o.Prefix, "lg-"+strconv.FormatInt(time.Now().UnixMilli(), 36))
	if o.Clients == 0 {
		o.Clients = 2
	}
	if o.Duration == 0 {
		o.Duration = 10 * time.Second
	}
	if o.Others == 0 {
		o.Others = 1000
	}
	if o.Batches == 0 {
		o.Batches = 1
	}
	if o.Size == 0 {
		o.Size = 10000
	}
	if o.Poll == 0 {
		o.Poll = 50 * time.Millisecond
	}
	o.URL = strings.TrimRight(o.URL, "/")
	switch {
	case o.Scenario != "upsert" && o.Scenario != "read" && o.Scenario != "batch" && o.Scenario != "scale":
		return o, fmt.Errorf("-scenario %q: want upsert, read, batch or scale", o.Scenario)
	case o.Record != "small" && o.Record != "full":
		return o, fmt.Errorf("-record %q: want small or full", o.Record)
	case o.Password == "":
		return o, errors.New("no password: give -password or CMS_LOAD_PASSWORD")
	case o.Clients < 0 || o.Records < 0 || o.Others < 0 || o.Batches < 0 || o.Size < 0 || o.Duration < 0 || o.PID < 0:
		return o, errors.New("-clients, -records, -others, -batches, -size, -duration and -pid must not be negative")
	case o.Scenario == "scale" && o.Records < scale.Named:
		return o, fmt.Errorf("-records %d: the scale scenario needs at least %d", o.Records, scale.Named)
	case !validPrefix(o.Prefix):
		return o, fmt.Errorf("-prefix %q: want 1 to %d characters of A-Z a-z 0-9 . _ ~ : @ - not starting with .", o.Prefix, maxPrefix)
	}
	return o, nil
}

// validPrefix: the ids the scenarios make from p are record ids.
func validPrefix(p string) bool {
	return p != "" && len(p) <= maxPrefix && cms.ValidID(p+"-b1-1")
}

// parseOptions reads the flags; getenv supplies CMS_LOAD_PASSWORD.
func parseOptions(args []string, getenv func(string) string, stderr io.Writer) (options, error) {
	var o options
	fs := flag.NewFlagSet("loadgen", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.URL, "url", "http://127.0.0.1:8080", "server base URL")
	fs.StringVar(&o.User, "user", "admin", "user to log in as")
	fs.StringVar(&o.Password, "password", getenv("CMS_LOAD_PASSWORD"), "password (default $CMS_LOAD_PASSWORD)")
	fs.StringVar(&o.Scenario, "scenario", "upsert", "upsert, read, batch or scale")
	fs.IntVar(&o.Clients, "clients", 2, "concurrent clients")
	fs.DurationVar(&o.Duration, "duration", 10*time.Second, "how long upsert and read run, and each operation of scale")
	fs.StringVar(&o.Record, "record", "small", "small or full records")
	fs.StringVar(&o.Prefix, "prefix", "", "id prefix (default lg-<time>, so runs do not collide; scale: lg-scale<records>, so runs share the set)")
	fs.StringVar(&o.Langs, "langs", "", "the account's languages, default first, e.g. en,it,de (default: from the login token)")
	fs.IntVar(&o.Records, "records", 1000, "records the read scenario creates first; Resources of the scale scenario's set")
	fs.IntVar(&o.Others, "others", 1000, "Landings, and Proposals, of the scale scenario's set")
	fs.IntVar(&o.Batches, "batches", 1, "batches the batch scenario submits")
	fs.IntVar(&o.Size, "size", 10000, "records per batch")
	fs.IntVar(&o.PID, "pid", 0, "server process id: report its RSS before and its peak RSS (VmHWM) after")
	fs.DurationVar(&o.Poll, "poll", 50*time.Millisecond, "batch status poll interval")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	if fs.NArg() > 0 {
		return o, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	if o.Clients == 0 || o.Batches == 0 || o.Size == 0 || o.Records == 0 || o.Others == 0 || o.Duration == 0 {
		return o, errors.New("-clients, -batches, -size, -records, -others and -duration must be above zero")
	}
	return o, nil
}

func main() {
	o, err := parseOptions(os.Args[1:], os.Getenv, os.Stderr)
	if errors.Is(err, flag.ErrHelp) {
		os.Exit(0)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "loadgen:", err)
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, o, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "loadgen:", err)
		os.Exit(1)
	}
}

// run logs in, runs the scenario of o against the server and writes the
// figures to stdout. It fails when the server cannot be used or when any
// request of the scenario failed (after printing the figures).
func run(ctx context.Context, o options, stdout io.Writer) error {
	o, err := o.withDefaults()
	if err != nil {
		return err
	}
	var before memory
	if o.PID > 0 {
		if before, err = readMemory(o.PID); err != nil {
			return err
		}
	}
	c := newClient(o.URL, o.User, o.Password, o.Clients)
	if err := c.login(ctx); err != nil {
		return err
	}
	langs, err := c.languages(o.Langs)
	if err != nil {
		return err
	}
	recs, err := newRecords(langs, o.Record == "full")
	if err != nil {
		return err
	}
	shape := o.Record
	if o.Scenario == "scale" {
		shape = "typical" // the set's own: cms.SampleRecord in the default language
	}
	fmt.Fprintf(stdout, "loadgen: %s, %s as %s, langs %s, %s records, %d clients, prefix %s\n",
		o.Scenario, o.URL, o.User, langs, shape, o.Clients, o.Prefix)
	if o.Record == "full" && o.Scenario != "scale" {
		n, err := prepareFull(ctx, c, recs, o.Prefix+"-probe")
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "full record: %.1f KB, %d referenced records created\n",
			float64(len(recs.writer().append(nil, o.Prefix+"-probe", 0)))/1024, n)
	}
	switch o.Scenario {
	case "upsert":
		err = upsert(ctx, c, recs, o, stdout)
	case "read":
		err = read(ctx, c, recs, o, stdout)
	case "batch":
		err = batches(ctx, c, recs, o, stdout)
	case "scale":
		err = scaleScenario(ctx, c, langs.Default, o, stdout)
	}
	if o.PID > 0 {
		after, merr := readMemory(o.PID)
		if merr != nil {
			return errors.Join(err, merr)
		}
		fmt.Fprintf(stdout, "server memory: RSS before %s, peak RSS (VmHWM) %s, RSS after %s\n",
			mb(before.rss), mb(after.hwm), mb(after.rss))
		if after.hwm <= before.hwm {
			fmt.Fprintln(stdout, "server memory: the peak did not grow during this run; it is from before (restart the server to measure one run)")
		}
	}
	return err
}

// mb formats a byte count in MB of 2^20 bytes.
func mb(n int64) string { return fmt.Sprintf("%.1f MB", float64(n)/(1<<20)) }
