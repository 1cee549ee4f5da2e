package cms

import "fmt"

// Kind names one of the four record kinds; its value is the path segment.
type Kind string

// The record kinds.
const (
	KindResource Kind = "resource"
	KindMap      Kind = "map"
	KindLanding  Kind = "landing"
	KindProposal Kind = "proposal"
)

// Kinds lists every kind in the contract's order.
func Kinds() []Kind { return []Kind{KindResource, KindMap, KindLanding, KindProposal} }

// ParseKind returns the kind named by a path segment.
func ParseKind(s string) (Kind, error) {
	switch k := Kind(s); k {
	case KindResource, KindMap, KindLanding, KindProposal:
		return k, nil
	}
	return "", fmt.Errorf("unknown kind %q: %w", s, &Error{Code: CodeMalformed, Message: "Wrong request"})
}

// Title is the capitalised name used in response texts ("Resource").
func (k Kind) Title() string {
	switch k {
	case KindResource:
		return "Resource"
	case KindMap:
		return "Map"
	case KindLanding:
		return "Landing"
	case KindProposal:
		return "Proposal"
	}
	return string(k)
}

// Plural is the plural used in response texts ("Resources"), even for one.
func (k Kind) Plural() string { return k.Title() + "s" }

// Record is implemented by the pointer of every record kind: *Resource,
// *Map, *Landing and *Proposal. Each kind declares its methods in its own
// file; code for every kind reads and sets the fields they share through
// Common, never by a switch on the record's type.
type Record interface {
	// Kind returns the record's kind, whatever its contents.
	Kind() Kind
	// RecordID returns the record's id.
	RecordID() string
	// Common points at the fields every kind has.
	Common() Common
}

// Common points at the fields every record has, whatever its kind. Setting
// through a pointer sets the record's field.
type Common struct {
	ID                 *string
	Published          *Opt[bool]
	TimeLastUpdate     *string
	Title              *Langs[string]
	URLAlias           *Langs[string]
	DeleteIrreversibly *Opt[bool]
}

// NewRecord returns an empty record of kind k.
func NewRecord(k Kind) Record {
	switch k {
	case KindResource:
		return new(Resource)
	case KindMap:
		return new(Map)
	case KindLanding:
		return new(Landing)
	case KindProposal:
		return new(Proposal)
	}
	return nil
}

// The parts only some kinds have, each declared by its kinds in their own
// files; code for every kind asks a record for them.
type (
	// locatedRecord is a record with a position (Resources, Maps), which
	// reads filter on by bbox.
	locatedRecord interface {
		location() (lat, lon Null[float64])
	}
	// assigningRecord is a record on one side of the Resource-Map
	// assignments (Resources, Maps).
	assigningRecord interface {
		assignment() assignmentSide
	}
	// addingRecord is a record whose document lists take ...Add lists
	// that append to them (poiResourceIdsAdd).
	addingRecord interface {
		addLists() []addList
	}
	// defaultedRecord is a record with defaults at creation besides
	// published false.
	defaultedRecord interface {
		setCreationDefaults()
	}
	// countedRecord is a record that counts its reads (Proposals).
	countedRecord interface {
		setStats(count int64, last Null[string])
	}
)

// addList is a document list and the ...Add list of a body appended to
// it.
type addList struct {
	list, add *Null[[]string]
}

// newWithDefaults is a new record with the values a body that leaves them
// out gets at creation: unpublished, and its kind's own defaults (a Map's
// route planner settings).
func newWithDefaults(kind Kind, id string) Record {
	rec := NewRecord(kind)
	if rec == nil {
		return nil
	}
	c := rec.Common()
	*c.ID, *c.Published = id, Some(false)
	if d, ok := rec.(defaultedRecord); ok {
		d.setCreationDefaults()
	}
	return rec
}
