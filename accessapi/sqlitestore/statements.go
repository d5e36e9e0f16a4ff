package sqlitestore

import (
	"context"
	"database/sql"
	"errors"
	"sync"
)

// stmtCache keeps prepared statements by query text, so SQLite parses each
// statement once rather than on every call (parsing was a quarter of a
// license sign-up's CPU time). Queries are fixed strings, so it stays small.
type stmtCache struct {
	mu sync.Mutex
	m  map[string]*sql.Stmt
}

func (c *stmtCache) get(q string) *sql.Stmt {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.m[q]
}

// put keeps st unless the query has one already, and returns the one kept.
func (c *stmtCache) put(q string, st *sql.Stmt) *sql.Stmt {
	c.mu.Lock()
	defer c.mu.Unlock()
	if old := c.m[q]; old != nil {
		_ = st.Close()
		return old
	}
	if c.m == nil {
		c.m = map[string]*sql.Stmt{}
	}
	c.m[q] = st
	return st
}

func (c *stmtCache) close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	var err error
	for _, st := range c.m {
		err = errors.Join(err, st.Close())
	}
	c.m = nil
	return err
}

// readStmt returns the prepared read statement for q.
func (s *Store) readStmt(ctx context.Context, q string) (*sql.Stmt, error) {
	if st := s.readStmts.get(q); st != nil {
		return st, nil
	}
	st, err := s.read.PrepareContext(ctx, q)
	if err != nil {
		return nil, err
	}
	return s.readStmts.put(q, st), nil
}

// queryRow runs a read that returns one row.
func (s *Store) queryRow(ctx context.Context, q string, args ...any) *sql.Row {
	st, err := s.readStmt(ctx, q)
	if err != nil {
		return s.read.QueryRowContext(ctx, q, args...) // reports the error
	}
	return st.QueryRowContext(ctx, args...)
}

// query runs a read that returns rows.
func (s *Store) query(ctx context.Context, q string, args ...any) (*sql.Rows, error) {
	st, err := s.readStmt(ctx, q)
	if err != nil {
		return nil, err
	}
	return st.QueryContext(ctx, args...)
}

// reads runs queries on the read pool, for code shared with writes.
type reads struct{ s *Store }

// QueryContext runs a read that returns rows.
func (r reads) QueryContext(ctx context.Context, q string, args ...any) (*sql.Rows, error) {
	return r.s.query(ctx, q, args...)
}

// writeTx is the transaction a write runs in. Its statements use the
// statements prepared on the write connection; a query seen for the first
// time runs unprepared and is prepared after the batch, when the
// connection is free.
type writeTx struct {
	*sql.Tx
	s *Store
}

func (t *writeTx) stmt(ctx context.Context, q string) *sql.Stmt {
	if st := t.s.writeStmts.get(q); st != nil {
		return t.Tx.StmtContext(ctx, st)
	}
	t.s.toPrepare[q] = true
	return nil
}

// ExecContext runs a statement in the transaction.
func (t *writeTx) ExecContext(ctx context.Context, q string, args ...any) (sql.Result, error) {
	if st := t.stmt(ctx, q); st != nil {
		return st.ExecContext(ctx, args...)
	}
	return t.Tx.ExecContext(ctx, q, args...)
}

// QueryRowContext runs a query that returns one row in the transaction.
func (t *writeTx) QueryRowContext(ctx context.Context, q string, args ...any) *sql.Row {
	if st := t.stmt(ctx, q); st != nil {
		return st.QueryRowContext(ctx, args...)
	}
	return t.Tx.QueryRowContext(ctx, q, args...)
}

// QueryContext runs a query that returns rows in the transaction.
func (t *writeTx) QueryContext(ctx context.Context, q string, args ...any) (*sql.Rows, error) {
	if st := t.stmt(ctx, q); st != nil {
		return st.QueryContext(ctx, args...)
	}
	return t.Tx.QueryContext(ctx, q, args...)
}

// prepareSeen prepares the write statements the last batch ran unprepared.
// Only the writer calls it, between batches.
func (s *Store) prepareSeen(ctx context.Context) {
	for q := range s.toPrepare {
		delete(s.toPrepare, q)
		if st, err := s.write.PrepareContext(ctx, q); err == nil {
			s.writeStmts.put(q, st)
		}
	}
}
