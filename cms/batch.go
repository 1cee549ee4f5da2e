package cms

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
)

// BatchReceipt is the answer of SubmitBatch.
type BatchReceipt struct {
	// ID names the batch for BatchStatus.
	ID string
	// Count is the number of records in it.
	Count int
}

// SubmitBatch validates a batch body (one JSON array of records of kind)
// whole, with the rules and references of single upserts (a record may name
// records earlier in the same batch), and stores it durably as a waiting
// batch. The records are decoded one at a time; only the body itself is
// kept. Errors: CodeMalformed for a body that is not one strict JSON array
// of objects; CodeInvalid listing every problem of every record;
// CodeTooLarge over Options.MaxBatchRecords; CodeUnauthorized, CodeForbidden
// (write; delete too when a record asks deleteElementIrreversibly). While
// this service's own workers run, it may keep body until they apply the
// batch: the caller must not change it.
func (s *Service) SubmitBatch(ctx context.Context, kind Kind, body []byte) (BatchReceipt, error) {
	local := s.workers.Load() > 0
	keep := 0
	if local {
		keep = s.handoff.limit / keptDecodedShare
	}
	p, count, checked, err := s.checkedBatch(ctx, kind, body, keep)
	if err != nil {
		return BatchReceipt{}, err
	}
	id, err := s.randomHex(16)
	if err != nil {
		return BatchReceipt{}, err
	}
	now := s.Now()
	b := &Batch{ID: id, Account: p.Account, Kind: kind, Payload: body, Count: count, Status: BatchWaiting,
		Requested: now, StatusAt: now}
	if err := s.store.EnqueueBatch(ctx, b); err != nil {
		return BatchReceipt{}, err
	}
	if local {
		s.handoff.put(id, handoffEntry{payload: body, windows: checked.windows, codec: checked.codec}, now, s.opts.BatchLease)
	} else if s.opts.BatchWorkers != NoBatchWorkers && !s.idleWarned.Swap(true) {
		s.log.WarnContext(ctx, "cms: a batch was stored but no batch worker runs in this process; "+
			"call Service.Run (or set Options.BatchWorkers to NoBatchWorkers when another process applies batches)",
			"batch", id)
	}
	s.handoff.notify()
	return BatchReceipt{ID: id, Count: count}, nil
}

// CheckBatch checks a batch body exactly as SubmitBatch would (DECISIONS
// §10 dryRun: the same decoding, rules, references and aliases, judged
// against the records stored now) and stores nothing. It returns the
// number of records; the errors are SubmitBatch's.
func (s *Service) CheckBatch(ctx context.Context, kind Kind, body []byte) (int, error) {
	_, count, _, err := s.checkedBatch(ctx, kind, body, 0)
	return count, err
}

// keptDecodedShare: a submit keeps its decoded records for the handoff
// while they take at most this share of Options.BatchHandoff (8 MiB by
// default, a few thousand records); a larger batch is checked in little
// memory and decoded again by its worker.
const keptDecodedShare = 8

// checkedRecords are the records of a batch as checkBatch decoded them, in
// its windows, and the codec it decoded them with; no windows when not
// kept.
type checkedRecords struct {
	windows [][]Record
	codec   *Codec
}

// checkedBatch is the caller of a batch of kind and its number of records,
// or why it cannot be queued; with keep above 0, also its decoded records
// when they take at most about keep bytes.
func (s *Service) checkedBatch(ctx context.Context, kind Kind, body []byte, keep int) (Principal, int, checkedRecords, error) {
	p, err := s.caller(ctx, kind, ActionWrite)
	if err != nil {
		return p, 0, checkedRecords{}, err
	}
	codec, err := s.codec(p.Langs)
	if err != nil {
		return p, 0, checkedRecords{}, err
	}
	count, windows, problems, err := s.checkBatch(ctx, p, codec, kind, body, keep)
	if err != nil {
		return p, 0, checkedRecords{}, err
	}
	if len(problems) > 0 {
		return p, 0, checkedRecords{}, &Error{Code: CodeInvalid, Message: "invalid batch", Problems: problems}
	}
	return p, count, checkedRecords{windows, codec}, nil
}

// batchRecordProblems are the problems of one record of a batch; the
// record itself is not kept, so a large batch is checked in little memory.
type batchRecordProblems struct {
	id      string
	idSet   bool
	own     []fieldProblem // the body's own, from decoding
	files   []fieldProblem // file fields naming a file that does not fit
	merged  []fieldProblem // the TRACK rule on the merged record
	refs    []batchRef     // references the batch does not answer itself
	aliases []fieldProblem // aliases held by another record
	// forbidden: the record deletes without the delete permission.
	forbidden bool
}

// batchRef is a reference of a batch record the batch does not answer
// itself: the store must hold it as one of kinds (none: the batch deleted
// it by then).
type batchRef struct {
	refUse
	kinds []Kind
}

// checkBatch decodes every record of a batch body and returns how many
// there are and every problem, in record order, as single upserts of the
// records one after another would find them (batchPlan). With keep above
// 0 it also returns the decoded records, in their windows, while they
// take at most about keep bytes (decodedSize): checking changes none of
// them.
func (s *Service) checkBatch(ctx context.Context, p Principal, codec *Codec, kind Kind, body []byte, keep int) (int, [][]Record, []Problem, error) {
	split, err := newRecordSplitter(body)
	if err != nil {
		return 0, nil, nil, err
	}
	var windows [][]Record
	var (
		records   []batchRecordProblems // only records with problems or references
		count     int
		forbidden bool
	)
	plan := newBatchPlan(s, p.Account, kind, codec)
	spec := s.doc.kinds[kind].spec
	ctx, cancel := context.WithCancel(ctx)
	defer cancel() // stops the splitter and the decoding when a window is refused
	decode := func(raw []byte) (checkedRecord, error) {
		rec := NewRecord(kind)
		err := s.decode(p.Account, codec, raw, rec)
		return checkedRecord{rec, refUses(spec, reflect.ValueOf(rec).Elem(), "", nil)}, err
	}
	for w := range decodedWindows(ctx, split, s.opts.MaxBatchRecords, decode) {
		// The next window is cut and decoded on every core while this
		// one's records are taken in order.
		if w.err != nil {
			return 0, nil, nil, w.err
		}
		if count += len(w.items); count > s.opts.MaxBatchRecords {
			return 0, nil, nil, &Error{Code: CodeTooLarge, Message: "Request too large",
				Err: fmt.Errorf("more than %d records", s.opts.MaxBatchRecords)}
		}
		recs := make([]Record, len(w.items))
		for i, c := range w.items {
			recs[i] = c.rec
		}
		if decodedSize(len(body), count) <= keep {
			windows = append(windows, recs)
		} else {
			windows = nil
		}
		if err := plan.prefetch(ctx, recs); err != nil {
			return 0, nil, nil, err
		}
		for i, c := range w.items {
			r, err := s.checkBatchRecord(ctx, p, kind, c.rec, w.errs[i], c.uses, plan)
			if err != nil {
				return 0, nil, nil, err
			}
			forbidden = forbidden || r.forbidden
			if len(r.own)+len(r.files)+len(r.merged)+len(r.refs)+len(r.aliases) > 0 {
				records = append(records, r)
			}
		}
	}
	// The ids named and not made by the batch must exist already.
	var named []refUse
	for _, r := range records {
		for _, ref := range r.refs {
			if len(ref.kinds) > 0 {
				named = append(named, ref.refUse)
			}
		}
	}
	exists, err := s.existence(ctx, s.store, p.Account, named)
	if err != nil {
		return 0, nil, nil, err
	}
	found := func(k Kind, id string) bool { return exists[k][id] }
	var all []Problem
	for _, r := range records {
		probs := slices.Concat(r.own, r.files, r.merged)
		for _, ref := range r.refs {
			if problem, missing := referenceRule(ref.refUse, ref.kinds, found); missing {
				probs = append(probs, problem)
			}
		}
		probs = append(probs, r.aliases...)
		if e, ok := recordProblems(kind, r.id, r.idSet, probs).(*Error); ok {
			all = append(all, e.Problems...)
		}
	}
	if len(all) == 0 && forbidden {
		return 0, nil, nil, errForbidden()
	}
	return count, windows, all, nil
}

// checkedRecord is a submitted record decoded with its field rules, and
// the references it makes.
type checkedRecord struct {
	rec  Record
	uses []refUse
}

// checkBatchRecord takes a decoded batch record in its turn: its own
// problems, its file fields', the merged record's and its aliases' (plan), and the
// references the batch does not answer itself (a record may name itself
// or any record the batch made before it, not one it deleted).
func (s *Service) checkBatchRecord(ctx context.Context, p Principal, kind Kind, rec Record, err error, uses []refUse, plan *batchPlan) (batchRecordProblems, error) {
	var r batchRecordProblems
	e, invalid := errors.AsType[*Error](err)
	if invalid = invalid && e.Code == CodeInvalid; err != nil && !invalid {
		return r, err // malformed, or no record at all
	}
	r.id, r.idSet = rec.RecordID(), ValidID(rec.RecordID())
	// Refused for want of delete only if the batch has no problem, as a
	// single upsert judges its body first.
	r.forbidden = rec.Common().DeleteIrreversibly.Value && !p.Can(kind, ActionDelete)
	if invalid {
		r.idSet = e.Problems[0].ID != "(no id)"
		for _, pr := range e.Problems {
			r.own = append(r.own, fieldProblem{pr.Field, pr.Text})
		}
	}
	// A delete without problems names nothing: it deletes before any
	// reference is looked at, as a single upsert does.
	if !rec.Common().DeleteIrreversibly.Value || len(r.own) > 0 {
		for _, u := range uses {
			ref := batchRef{refUse: u, kinds: refKinds(u.toKind)}
			if slices.Contains(ref.kinds, kind) {
				if u.id == rec.RecordID() {
					continue
				}
				exists, known := plan.exists(u.id)
				if exists {
					continue
				}
				if known { // deleted by the batch: only another kind may hold it
					ref.kinds = slices.DeleteFunc(slices.Clone(ref.kinds), func(k Kind) bool { return k == kind })
				}
			}
			r.refs = append(r.refs, ref)
		}
	}
	if r.idSet && ValidID(rec.RecordID()) {
		// The files it names, as an upsert judges them: the worker that
		// applies the batch later has no request, so cannot tell this
		// service's own file urls from others.
		if !rec.Common().DeleteIrreversibly.Value || len(r.own) > 0 {
			if _, r.files, err = s.checkFiles(ctx, s.store, p, rec); err != nil {
				return r, err
			}
		}
		if r.merged, r.aliases, err = plan.apply(ctx, rec, len(r.own) > 0); err != nil {
			return r, err
		}
	}
	return r, nil
}

// BatchStatus returns a batch of kind for the principal in ctx (read
// permission). While it is processing, Processed is the most recent of
// what its worker wrote with the lease's heartbeat and, when a worker of
// this service applies it, what that worker has applied (on SQLite the
// only source before the batch ends: see batchRun); Attempts tells a
// claim that started again from 0. CodeNotFound ("There is no <Kind> <id> to clone", the
// interface's text) when the account has none.
func (s *Service) BatchStatus(ctx context.Context, kind Kind, id string) (*Batch, error) {
	p, err := s.caller(ctx, kind, ActionRead)
	if err != nil {
		return nil, err
	}
	b, err := s.store.GetBatch(ctx, p.Account, kind, id)
	if ErrorCode(err) == CodeNotFound {
		return nil, errNoneToClone(kind, id)
	}
	if err != nil {
		return nil, err
	}
	s.runs.fill(b)
	return b, nil
}
