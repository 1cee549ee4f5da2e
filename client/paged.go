package client

import (
	"iter"
	"strconv"
)

// paged follows a list page after page: fetch reads the page of at most
// n items after cursor ("" the first page) and answers them with the
// next page's cursor ("" none). limit, when above 0, stops after that
// many items. A failed fetch yields its error and ends the sequence.
func paged[T any](limit, pageSize int, first string, fetch func(n int, cursor string) ([]T, string, error)) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		var zero T
		cursor, left := first, limit
		for {
			n := pageSize
			if limit > 0 {
				n = min(n, left)
			}
			items, next, err := fetch(n, cursor)
			if err != nil {
				yield(zero, err)
				return
			}
			for _, it := range items {
				if !yield(it, nil) {
					return
				}
			}
			left -= len(items)
			if next == "" || len(items) == 0 || (limit > 0 && left <= 0) {
				return
			}
			cursor = next
		}
	}
}

// failed is a sequence of err alone.
func failed[T any](err error) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		var zero T
		yield(zero, err)
	}
}

// positiveCursor is a numeric page cursor as the query gives it ("" for
// 0: none).
func positiveCursor(n int64) string {
	if n <= 0 {
		return ""
	}
	return strconv.FormatInt(n, 10)
}

func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}
