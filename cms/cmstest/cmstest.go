// Package cmstest is the conformance suite of [cms.Store]: every adapter
// runs it, so that all adapters keep the promises the interface's comments
// make, and keep them alike. An adapter's test is three lines:
//
//	func TestConformance(t *testing.T) {
//		cmstest.Run(t, func(t *testing.T) cms.Store { return openTestStore(t) })
//	}
//
// open must return a new, empty store on every call and release it when t
// ends (t.Cleanup). Every subtest opens its own store and runs in
// parallel with the others, so open is called concurrently.
//
// The suite checks what the comments of [cms.Store] promise, and nothing
// an adapter may choose: records of every kind stored and read back whole
// (explicit nulls and nested items included), ids per account and kind,
// the order and filters of [cms.RecordStore.ListRecords] and a stream of
// 10,000 records in bounded memory, urlAlias uniqueness (a taken alias is
// a race, also under concurrent writers) and alias numbers
// (AliasNumbers splits aliases as cms.SplitAlias), references, Resource-Map assignments from both
// sides, transactions (rollback on error and on panic, nesting), set
// writes and reads (PutRecords, AliasHolders, GetRecords and LockKind
// holding ids, LockAccountWrites queueing writers, HoldReferenced and
// LockForDelete keeping a reference and a delete of its target apart),
// concurrent writers without lost updates, accounts, users, login
// throttling (reservations held to their limits under concurrency),
// settings, refresh tokens (one winner of concurrent spends, the user's
// token lock), the batch queue (claims, leases, concurrent claimers) and
// uploaded files' metadata (one file per content in an account, pages
// newest first, unused files, GetFiles holding files against LockFile),
// the audit list (newest first, paged, per account) and leases (one
// holder, even among takers at once; expiry; cursors written only by
// the lease's holder).
// Where adapters differ, the suite reads [cms.Features], never the
// adapter's name.
//
// Times the suite stores have whole microseconds and are compared as
// instants (time.Time.Equal), so a store may give them back in any zone.
// The stream test is skipped with -short. Bench runs the storage
// benchmarks the same way.
package cmstest

import (
	"testing"

	"github.com/bwcms/cms/cms"
)

// Run runs the whole suite on the stores open returns.
func Run(t *testing.T, open func(t *testing.T) cms.Store) {
	t.Run("Records", func(t *testing.T) { testRecords(t, open) })
	t.Run("List", func(t *testing.T) { testList(t, open) })
	t.Run("Points", func(t *testing.T) { testPoints(t, open) })
	t.Run("Aliases", func(t *testing.T) { testAliases(t, open) })
	t.Run("References", func(t *testing.T) { testReferences(t, open) })
	t.Run("Assignments", func(t *testing.T) { testAssignments(t, open) })
	t.Run("Transactions", func(t *testing.T) { testTransactions(t, open) })
	t.Run("Bulk", func(t *testing.T) { testBulk(t, open) })
	t.Run("AppendAssignments", func(t *testing.T) { testAppendAssignments(t, open) })
	t.Run("AccountWrites", func(t *testing.T) { testAccountWrites(t, open) })
	t.Run("ReferenceLocks", func(t *testing.T) { testReferenceLocks(t, open) })
	t.Run("Accounts", func(t *testing.T) { testAccounts(t, open) })
	t.Run("Logins", func(t *testing.T) { testLogins(t, open) })
	t.Run("Tokens", func(t *testing.T) { testTokens(t, open) })
	t.Run("Audit", func(t *testing.T) { testAudit(t, open) })
	t.Run("Leases", func(t *testing.T) { testLeases(t, open) })
	t.Run("Batches", func(t *testing.T) { testBatches(t, open) })
	t.Run("Search", func(t *testing.T) { testSearch(t, open) })
	t.Run("Browse", func(t *testing.T) { testBrowse(t, open) })
	t.Run("Files", func(t *testing.T) { testFiles(t, open) })
	t.Run("Changes", func(t *testing.T) { testChanges(t, open) })
	t.Run("Overview", func(t *testing.T) { testOverview(t, open) })
	t.Run("StoredReads", func(t *testing.T) { testStoredReads(t, open) })
}
