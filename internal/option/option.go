// Package option holds the one rule every options struct of the library
// follows for its numbers: a zero value means the default; "off" or "keep
// all" is a named negative sentinel of the owning package (such as
// cms.NoGrace); any other negative value is refused with an error that
// names the field, since it can only be a mistake.
package option

import (
	"fmt"
	"strings"
)

// Number is what the rule applies to: counts, sizes and durations.
type Number interface {
	~int | ~int8 | ~int16 | ~int32 | ~int64
}

// Sentinel is a named negative value a field accepts, as its package
// spells it ("cms.NoGrace").
type Sentinel[T Number] struct {
	Name  string
	Value T
}

// Default applies the rule to *v, the option named field ("cms:
// Options.BatchMaxAttempts"): 0 becomes def, a positive value or one of
// sentinels stays as it is, any other value is an error.
func Default[T Number](field string, v *T, def T, sentinels ...Sentinel[T]) error {
	if *v == 0 {
		*v = def
		return nil
	}
	return Check(field, *v, fmt.Sprint(def), sentinels...)
}

// Check is Default for an option whose default is not a constant (one
// the caller works out when v is 0, described by defText such as
// "GOMAXPROCS"): nil when v is 0, positive or one of sentinels.
func Check[T Number](field string, v T, defText string, sentinels ...Sentinel[T]) error {
	if v >= 0 {
		return nil
	}
	for _, s := range sentinels {
		if v == s.Value {
			return nil
		}
	}
	allowed := []string{"0 (default " + defText + ")"}
	for _, s := range sentinels {
		allowed = append(allowed, s.Name)
	}
	return fmt.Errorf("%s is %v: must be %s or more", field, v, strings.Join(allowed, ", "))
}
