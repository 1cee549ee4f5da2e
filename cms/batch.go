package cms

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"reflect"
	"slices"
	"sync"
	"time"

	"github.com/go-json-experiment/json/jsontext"
)

// BatchReceipt is the answer of SubmitBatch.
type BatchReceipt struct {
	ID    string
	Count int
}

var errBatchShape = errors.New("a batch is one JSON array of objects")

// SubmitBatch validates a batch body (one JSON array of records of kind)
// whole, with the rules and references of single upserts (a record may
// name records earlier in the same batch), and stores it durably as a
// waiting batch (DECISIONS §10). The records are decoded one at a time; only
// the body itself is kept. Errors: CodeMalformed for a body that is not
// one strict JSON array of objects; CodeInvalid listing every problem of
// every record; CodeTooLarge over Options.MaxBatchRecords;
// CodeUnauthorized, CodeForbidden (write; delete too when a record asks
// deleteElementIrreversibly).
func (s *Service) SubmitBatch(ctx context.Context, kind Kind, body []byte) (BatchReceipt, error) {
	p, err := s.caller(ctx, kind, ActionWrite)
	if err != nil {
		return BatchReceipt{}, err
	}
	codec, err := s.codec(p.Langs)
	if err != nil {
		return BatchReceipt{}, err
	}
	count, problems, err := s.checkBatch(ctx, p, codec, kind, body)
	if err != nil {
		return BatchReceipt{}, err
	}
	if len(problems) > 0 {
		return BatchReceipt{}, &Error{Code: CodeInvalid, Message: "invalid batch", Problems: problems}
	}
	id, err := s.randomHex(16)
	if err != nil {
		return BatchReceipt{}, err
	}
	now := s.now()
	b := &Batch{ID: id, Account: p.Account, Kind: kind, Payload: body, Count: count, Status: BatchWaiting,
		Requested: now, StatusAt: now}
	if err := s.store.EnqueueBatch(ctx, b); err != nil {
		return BatchReceipt{}, err
	}
	return BatchReceipt{ID: id, Count: count}, nil
}

// batchRecordProblems are the problems of one record of a batch.
type batchRecordProblems struct {
	rec      Record
	idSet    bool
	problems []fieldProblem
}

// checkBatch decodes every record of a batch body and returns how many
// there are and every problem, in record order.
func (s *Service) checkBatch(ctx context.Context, p Principal, codec *Codec, kind Kind, body []byte) (int, []Problem, error) {
	dec := jsontext.NewDecoder(bytes.NewReader(body))
	if dec.PeekKind() != '[' {
		return 0, nil, malformed(errBatchShape)
	}
	if _, err := dec.ReadToken(); err != nil {
		return 0, nil, malformed(err)
	}
	spec := s.doc.kinds[kind].spec
	var (
		records []batchRecordProblems // only records with problems or references
		uses    [][]refUse
		earlier = map[string]bool{}
		count   int
	)
	for dec.PeekKind() != ']' {
		if count == s.opts.MaxBatchRecords {
			return 0, nil, &Error{Code: CodeTooLarge, Message: "Request too large",
				Err: fmt.Errorf("more than %d records", s.opts.MaxBatchRecords)}
		}
		count++
		rec := NewRecord(kind)
		err := codec.DecodeFrom(dec, rec)
		if ErrorCode(err) == CodeMalformed {
			return 0, nil, err
		}
		if deleteAsked(rec) && !p.Can(kind, ActionDelete) {
			return 0, nil, errForbidden
		}
		var own []fieldProblem
		idSet := ValidID(rec.RecordID())
		if e, ok := errors.AsType[*Error](err); ok {
			idSet = e.Problems[0].ID != "(no id)"
			for _, pr := range e.Problems {
				own = append(own, fieldProblem{pr.Field, pr.Text})
			}
		} else if err != nil {
			return 0, nil, err
		}
		u := refUses(spec, reflect.ValueOf(rec).Elem(), "", nil)
		// A record may name itself or any record before it in the batch.
		u = slices.DeleteFunc(u, func(r refUse) bool {
			for _, k := range refKinds(r.toKind) {
				if k == kind && (earlier[r.id] || r.id == rec.RecordID()) {
					return true
				}
			}
			return false
		})
		if idSet {
			earlier[rec.RecordID()] = true
		}
		if len(own) > 0 || len(u) > 0 {
			records = append(records, batchRecordProblems{rec: rec, idSet: idSet, problems: own})
			uses = append(uses, u)
		}
	}
	if _, err := dec.ReadToken(); err != nil {
		return 0, nil, malformed(err)
	}
	if _, err := dec.ReadToken(); err != io.EOF {
		return 0, nil, malformed(errTrailing)
	}
	// The ids named and not made by the batch must exist already.
	exists, err := s.existence(ctx, s.store, p.Account, slices.Concat(uses...))
	if err != nil {
		return 0, nil, err
	}
	var all []Problem
	for i, r := range records {
		probs := r.problems
		for _, u := range uses[i] {
			ok := false
			for _, k := range refKinds(u.toKind) {
				ok = ok || exists[k][u.id]
			}
			if !ok {
				probs = append(probs, fieldProblem{u.path, refKindText(u.toKind) + " " + u.id + " does not exist"})
			}
		}
		if e, ok := problemError(r.rec, r.idSet, probs).(*Error); ok {
			all = append(all, e.Problems...)
		}
	}
	return count, all, nil
}

// BatchStatus returns a batch of kind for the principal in ctx (read
// permission). CodeNotFound ("There is no <Kind> <id> to clone", the
// interface's text) when the account has none.
func (s *Service) BatchStatus(ctx context.Context, kind Kind, id string) (*Batch, error) {
	p, err := s.caller(ctx, kind, ActionRead)
	if err != nil {
		return nil, err
	}
	b, err := s.store.GetBatch(ctx, p.Account, kind, id)
	if ErrorCode(err) == CodeNotFound {
		return nil, &Error{Code: CodeNotFound, Message: "There is no " + kind.Title() + " " + id + " to clone"}
	}
	return b, err
}

// RunBatchWorkers applies waiting batches with n workers until ctx ends,
// then returns once they have stopped. A batch running when ctx ends is
// rolled back and left to its lease, so any instance takes it up again.
// n = 0 runs none (another process applies the batches).
func (s *Service) RunBatchWorkers(ctx context.Context, n int) {
	var wg sync.WaitGroup
	for range n {
		owner, err := s.randomHex(8)
		if err != nil {
			s.log.ErrorContext(ctx, "cms: batch worker id", "err", err)
			continue
		}
		wg.Go(func() {
			for ctx.Err() == nil {
				did, err := s.ProcessBatch(ctx, "worker-"+owner)
				if err != nil && ctx.Err() == nil {
					s.log.ErrorContext(ctx, "cms: batch worker", "err", err)
				}
				if !did || err != nil {
					select {
					case <-ctx.Done():
					case <-time.After(s.opts.BatchPoll):
					}
				}
			}
		})
	}
	wg.Wait()
}

// ProcessBatch claims the oldest waiting batch (or one whose lease ran out)
// for owner, applies it with its lease renewed meanwhile, and records the
// outcome. It reports whether there was a batch. When ctx ends first the
// batch is left, rolled back, to be taken up again after its lease.
func (s *Service) ProcessBatch(ctx context.Context, owner string) (bool, error) {
	now := s.now()
	b, err := s.store.ClaimBatch(ctx, owner, now, now.Add(s.opts.BatchLease))
	if ErrorCode(err) == CodeNotFound {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	applyCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	beats := make(chan struct{})
	go func() {
		defer close(beats)
		t := time.NewTicker(s.opts.BatchLease / 3)
		defer t.Stop()
		for {
			select {
			case <-applyCtx.Done():
				return
			case <-t.C:
				if err := s.store.HeartbeatBatch(applyCtx, b.ID, owner, s.now().Add(s.opts.BatchLease)); err != nil {
					if applyCtx.Err() == nil {
						s.log.WarnContext(ctx, "cms: batch lease lost; stopping", "batch", b.ID, "err", err)
					}
					cancel() // another worker holds it now
					return
				}
			}
		}
	}()
	res, applyErr := s.applyBatch(applyCtx, b)
	lost := applyCtx.Err() != nil
	cancel()
	<-beats
	if lost {
		return true, ctx.Err() // rolled back; the lease brings it back
	}
	status := BatchDone
	if applyErr != nil {
		status = BatchError
		res = BatchResult{Error: batchErrorText(applyErr)}
		s.log.WarnContext(ctx, "cms: batch failed", "batch", b.ID, "err", applyErr)
	}
	if err := s.store.FinishBatch(ctx, b.ID, owner, status, res, s.now()); err != nil {
		return true, fmt.Errorf("cms: finishing batch %s: %w", b.ID, err)
	}
	return true, nil
}

// batchErrorText is the reason a status answer shows: the problems of a
// record, or a general text (the cause goes to the log only).
func batchErrorText(err error) string {
	if e, ok := errors.AsType[*Error](err); ok && e.Code != CodeInternal {
		if len(e.Problems) > 0 {
			return e.ProblemText()
		}
		return e.Message
	}
	return "Internal error"
}

// applyBatch upserts every record of a batch in one transaction: all or
// none. Applying it twice gives the same records as once.
func (s *Service) applyBatch(ctx context.Context, b *Batch) (BatchResult, error) {
	acc, err := s.store.GetAccount(ctx, b.Account)
	if err != nil {
		return BatchResult{}, err
	}
	p := Principal{Account: acc.ID, User: "batch " + b.ID, Perms: []string{"*"}, Langs: acc.Langs}
	codec, err := s.codec(acc.Langs)
	if err != nil {
		return BatchResult{}, err
	}
	var res BatchResult
	err = s.store.WithTx(ctx, func(tx Store) error {
		res = BatchResult{}
		dec := jsontext.NewDecoder(bytes.NewReader(b.Payload))
		if _, err := dec.ReadToken(); err != nil {
			return malformed(err)
		}
		for i := 0; dec.PeekKind() != ']'; i++ {
			if analyzeAt(i) {
				if err := tx.Analyze(ctx); err != nil {
					return err
				}
			}
			rec := NewRecord(b.Kind)
			if err := codec.DecodeFrom(dec, rec); err != nil {
				return err
			}
			s.sanitize(rec)
			if deleteAsked(rec) {
				_, err := s.deleteRecords(ctx, tx, p, b.Kind, []string{rec.RecordID()})
				switch {
				case ErrorCode(err) == CodeNotFound: // already gone: the same as once
					res.Skipped++
				case err != nil:
					return err
				default:
					res.Updated++
				}
				continue
			}
			r, err := s.upsertIn(ctx, tx, p, codec, rec, nil, UpsertOptions{})
			if err != nil {
				return err
			}
			switch r.Outcome {
			case Created:
				res.Created++
			case Updated:
				res.Updated++
			default:
				res.Skipped++
			}
		}
		return nil
	})
	return res, err
}

// analyzeAt tells before which records of a batch the statistics are
// refreshed: early, then as the rows written grow by a few thousand.
func analyzeAt(i int) bool {
	return i == 200 || i == 1000 || i > 0 && i%2500 == 0
}
