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
// *Map, *Landing and *Proposal.
type Record interface {
	// Kind returns the record's kind, whatever its contents.
	Kind() Kind
	// RecordID returns the record's id.
	RecordID() string
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

// Kind returns KindResource.
func (*Resource) Kind() Kind { return KindResource }

// Kind returns KindMap.
func (*Map) Kind() Kind { return KindMap }

// Kind returns KindLanding.
func (*Landing) Kind() Kind { return KindLanding }

// Kind returns KindProposal.
func (*Proposal) Kind() Kind { return KindProposal }

// RecordID returns r.ID.
func (r *Resource) RecordID() string { return r.ID }

// RecordID returns m.ID.
func (m *Map) RecordID() string { return m.ID }

// RecordID returns l.ID.
func (l *Landing) RecordID() string { return l.ID }

// RecordID returns p.ID.
func (p *Proposal) RecordID() string { return p.ID }
