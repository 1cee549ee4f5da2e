package bunstore

import (
	"bytes"
	"fmt"

	"github.com/bwcms/cms/cms"
)

// The stored form of a done batch's outcomes is one line per record, in
// batch order: the outcome's letter, then the id (ids hold no newline).
// 10,000 records of 20-character ids take about 220 kB.
var outcomeLetters = map[cms.Outcome]byte{cms.Created: 'c', cms.Updated: 'u', cms.Skipped: 's', cms.Deleted: 'd'}

// encodeOutcomes is the stored form of outcomes; nil for none (an error
// batch's).
func encodeOutcomes(outcomes []cms.RecordOutcome) []byte {
	if len(outcomes) == 0 {
		return nil
	}
	size := 0
	for _, o := range outcomes {
		size += len(o.ID) + 2
	}
	b := make([]byte, 0, size)
	for _, o := range outcomes {
		letter, ok := outcomeLetters[o.Outcome]
		if !ok {
			letter = 's'
		}
		b = append(b, letter)
		b = append(b, o.ID...)
		b = append(b, '\n')
	}
	return b
}

// decodeOutcomes reads what encodeOutcomes wrote.
func decodeOutcomes(b []byte) ([]cms.RecordOutcome, error) {
	outcomes := make([]cms.RecordOutcome, 0, bytes.Count(b, []byte{'\n'}))
	for len(b) > 0 {
		line, rest, ok := bytes.Cut(b, []byte{'\n'})
		if !ok || len(line) < 2 {
			return nil, fmt.Errorf("bunstore: stored batch outcomes: a line %q", line)
		}
		o := cms.RecordOutcome{ID: string(line[1:])}
		switch line[0] {
		case 'c':
			o.Outcome = cms.Created
		case 'u':
			o.Outcome = cms.Updated
		case 's':
			o.Outcome = cms.Skipped
		case 'd':
			o.Outcome = cms.Deleted
		default:
			return nil, fmt.Errorf("bunstore: stored batch outcomes: outcome %q", line[0])
		}
		outcomes = append(outcomes, o)
		b = rest
	}
	return outcomes, nil
}
