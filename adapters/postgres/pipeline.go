package postgres

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// sendPipeline is the store's bunstore.Pipeline: the statements go to
// the server as one pgx batch on the transaction's connection, one
// round trip for all of them, prepared and cached as the store's other
// statements are.
func sendPipeline(ctx context.Context, c *sql.Conn, queries []string, args [][]any) (rows int64, failed int, err error) {
	failed = -1
	err = c.Raw(func(dc any) (err error) {
		// A panic here would make database/sql close the connection while
		// the transaction on it holds it: the request would hang.
		defer func() {
			if p := recover(); p != nil {
				err = fmt.Errorf("postgres: pipeline: %v", p)
			}
		}()
		var pgc *pgx.Conn
		switch c := dc.(type) {
		case *schemaConn: // a host pool's (OpenPool)
			pgc = c.Conn.Conn()
		case interface{ Conn() *pgx.Conn }:
			pgc = c.Conn()
		default:
			return errors.New("postgres: pipeline on a connection that is not pgx's")
		}
		batch := &pgx.Batch{}
		for i, q := range queries {
			batch.Queue(q, args[i]...)
		}
		results := pgc.SendBatch(ctx, batch)
		for i := range queries {
			tag, err := results.Exec()
			if err != nil {
				failed = i
				results.Close()
				return err
			}
			rows = tag.RowsAffected()
		}
		return results.Close()
	})
	return rows, failed, err
}
