package sqlitestore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// maxBatch bounds the writes one transaction commits together.
const maxBatch = 64

// errClosed answers writes after Close.
var errClosed = errors.New("sqlitestore: the store is closed")

// writeOp is one write waiting for the writer.
type writeOp struct {
	ctx  context.Context
	fn   func(ctx context.Context, tx *writeTx) error
	done chan error
}

// tx runs fn as one atomic write and returns when it is durable.
//
// Writes are group-committed: one goroutine owns the write connection and
// runs every write that is waiting when it is free in one transaction, each
// inside its own savepoint, then commits once (one WAL sync for all). A
// write that fails is rolled back to its savepoint alone; the others still
// commit. No write waits for a batch to fill: a lone write commits alone.
// fn must not do anything slow; it gets a context that is not cancelled
// (an interrupted statement would roll back the whole batch).
func (s *Store) tx(ctx context.Context, fn func(ctx context.Context, tx *writeTx) error) error {
	op := &writeOp{ctx: ctx, fn: fn, done: make(chan error, 1)}
	select {
	case s.writes <- op:
	case <-s.quit:
		return errClosed
	case <-ctx.Done():
		return ctx.Err()
	}
	return mapErr(<-op.done)
}

// exec runs one write statement as a write of its own.
func (s *Store) exec(ctx context.Context, q string, args ...any) (sql.Result, error) {
	var res sql.Result
	err := s.tx(ctx, func(ctx context.Context, tx *writeTx) error {
		var err error
		res, err = tx.ExecContext(ctx, q, args...)
		return err
	})
	return res, err
}

// writer runs the writes, a batch at a time, until Close.
func (s *Store) writer() {
	defer close(s.writerDone)
	batch := make([]*writeOp, 0, maxBatch)
	s.toPrepare = map[string]bool{}
	for {
		select {
		case op := <-s.writes:
			batch = append(batch[:0], op)
		case <-s.quit:
			return
		}
	collect:
		for len(batch) < maxBatch {
			select {
			case op := <-s.writes:
				batch = append(batch, op)
			default:
				break collect
			}
		}
		s.runBatch(batch)
	}
}

// runBatch runs the operations in one transaction and tells each its result
// once the transaction is committed.
func (s *Store) runBatch(batch []*writeOp) {
	results := make([]error, len(batch))
	err := s.retryBusy(func() error { return s.tryBatch(batch, results) })
	for i, op := range batch {
		if err != nil && results[i] == nil {
			results[i] = err
		}
		op.done <- results[i]
	}
}

// retryBusy retries fn a few times while SQLite answers busy or locked
// (busy_timeout has already waited); a retried batch had written nothing.
func (s *Store) retryBusy(fn func() error) error {
	var err error
	for range 3 {
		if err = fn(); !isBusy(err) {
			break
		}
	}
	return err
}

// tryBatch runs the batch in one transaction; results gets each
// operation's own error. The returned error fails every operation that
// has none of its own.
func (s *Store) tryBatch(batch []*writeOp, results []error) error {
	ctx := context.Background()
	sqlTx, err := s.write.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	tx := &writeTx{Tx: sqlTx, s: s}
	defer s.prepareSeen(ctx)
	for i, op := range batch {
		opCtx := context.WithoutCancel(op.ctx)
		if op.ctx.Err() != nil {
			results[i] = op.ctx.Err()
			continue
		}
		if _, err := tx.ExecContext(ctx, `SAVEPOINT write`); err != nil {
			_ = tx.Rollback()
			return err
		}
		results[i] = runOp(opCtx, op, tx)
		if results[i] != nil {
			// An error that ended the whole transaction (a full disk, an
			// I/O error) leaves no savepoint to roll back to.
			if _, err := tx.ExecContext(ctx, `ROLLBACK TO write`); err != nil {
				_ = tx.Rollback()
				return fmt.Errorf("write batch aborted: %w", results[i])
			}
		}
		if _, err := tx.ExecContext(ctx, `RELEASE write`); err != nil {
			_ = tx.Rollback()
			return err
		}
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	return nil
}

// runOp runs one write; a panic fails that write, not the writer.
func runOp(ctx context.Context, op *writeOp, tx *writeTx) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("write panicked: %v", v)
		}
	}()
	return op.fn(ctx, tx)
}
