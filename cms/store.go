package cms

import (
	"context"
	"iter"
	"time"
)

// Store is the storage the Service needs. Adapters (adapters/sqlite,
// adapters/postgres) implement it; cms/cmstest checks that they agree. A
// store only stores and fetches: every business rule lives in cms.
//
// Every method takes the caller's account where records are concerned: ids
// are unique per (account, kind) and two accounts never see each other's
// rows. Errors are *Error values (or wrap one): CodeNotFound, CodeConflict,
// CodeUnavailable when the database cannot be reached or a concurrent
// writer clashed with the transaction (a *RaceError cause: running it
// again may succeed), and CodeInternal for anything the database says that
// the caller cannot act on. Each method lists the codes it returns besides
// CodeInternal and CodeUnavailable.
type Store interface {
	RecordStore
	PointStore
	AssignmentStore
	AccountStore
	TokenStore
	BatchStore
	FileStore
	ChangeStore
	WebhookStore
	AuditStore
	LeaseStore
	OverviewStore

	// WithTx runs fn in one transaction: everything fn does through tx
	// happens, or nothing does (fn's error, or a panic, rolls back). Calls on
	// tx inside fn join the transaction; WithTx on tx runs fn in the same
	// transaction. Write transactions on SQLite take the write lock at
	// their start, so concurrent writers wait instead of failing.
	WithTx(ctx context.Context, fn func(tx Store) error) error
	// Ready tells whether the store can serve: its database answers and
	// holds the schema this build expects. CodeUnavailable when not.
	Ready(ctx context.Context) error

	// Features tells what this adapter does differently.
	Features() Features

	// Close releases the database.
	Close() error
}

// Features documents the differences between adapters, so callers and the
// conformance suite need no test on the adapter's name.
type Features struct {
	// Name of the adapter, for logs ("sqlite", "postgres").
	Name string
	// ConcurrentBatchClaims is true when several processes can claim batches
	// from one database at once (PostgreSQL, with FOR UPDATE SKIP LOCKED).
	// With SQLite one process applies batches in order.
	ConcurrentBatchClaims bool
	// SharedBatchProgress is true when the progress a batch's worker
	// writes with its heartbeat reaches every process while the batch
	// applies (PostgreSQL). With SQLite the apply's transaction holds the
	// one write connection until it ends, so no heartbeat lands meanwhile:
	// only the applying process's Service tells the progress
	// (BatchStatus), from its memory.
	SharedBatchProgress bool
}

// Entry is a record as stored: its document and what the store keeps
// beside it.
type Entry struct {
	// Account is the id of the account the record belongs to.
	Account string
	// Record holds every field but the read-only ones; on reads, a
	// Resource's mapIds/mapSecondaryIds and a Map's resourceIds/
	// secondaryResourceIds are filled from the assignments.
	Record Record
	// Updated is the instant of timeLastUpdate.
	Updated time.Time
	// StatsAccess and StatsLastAccess count Proposal reads by id
	// (StatsLastAccess zero: never).
	StatsAccess     int64
	StatsLastAccess time.Time
	// Document, when not empty, is Record in its storage form, as the
	// codec of NewDocumentCodec appends it: a store writes it as given
	// instead of marshalling Record (a batch marshals a chunk while the
	// one before is being written). Whoever changes Record clears it;
	// reads leave it empty.
	Document string
	// New, when set, says the record has no row yet: the caller's
	// transaction found none and holds its id. A put then has no aliases
	// and references of it to release first. Reads leave it false, and so
	// does whoever writes an Entry again after it was stored.
	New bool
	// Stored, on a read that asked for it (ListParams.Stored,
	// StoredStreamer), is the record undecoded, and Record is nil.
	Stored *StoredRecord
	// Indexed, when set, is the index of the record as stored now, read
	// in the caller's transaction: a put leaves the aliases and the
	// references that have not changed as they are instead of writing
	// them again (most updates change neither). Reads leave it nil, and so
	// does whoever keeps an Entry to write later.
	Indexed *RecordIndex
}

// Published filters records by their published flag.
type Published uint8

// The published filters of /published/{1|0|*}.
const (
	PublishedOnly Published = iota // 1, the default
	UnpublishedOnly
	PublishedAny
)

// BBox is a geographic box; MinLon > MaxLon means a box across the 180°
// meridian. Edges are inside.
type BBox struct {
	MinLon, MinLat, MaxLon, MaxLat float64
}

// ListParams selects the records ListRecords streams, in ascending id
// order (byte order).
type ListParams struct {
	// Account and Kind are the records listed: always both.
	Account string
	Kind    Kind
	// Published filters by the published flag.
	Published Published
	// MapID, when set, keeps Resources assigned to that Map in either role.
	MapID string
	// After, when set, keeps ids greater than it.
	After string
	// Limit, when above 0, stops after that many records.
	Limit int
	// BBox, when set, keeps records whose locationLat and locationLon are
	// both set and inside it.
	BBox *BBox
	// UpdatedSince, when not zero, keeps records updated at or after it.
	UpdatedSince time.Time
	// Terms, when set, keeps records that hold an index term
	// (RecordIndex.Terms) in each of the ranges: the words of a search
	// (SearchTerms). The store answers from its index of the terms,
	// never by reading documents.
	Terms []TermRange
	// Stored asks for the records undecoded: each Entry with Stored set
	// and Record nil. A store may ignore it and decode them.
	Stored bool
}

// RecordStore keeps records.
type RecordStore interface {
	// GetRecord returns one record. CodeNotFound when there is none. Inside
	// WithTx it holds the record's id until the transaction ends, whether
	// the record exists or not, so a read-modify-write loses no concurrent
	// update and two creators of one id run one after the other. An id
	// without a record is also held by a LockKind of another transaction:
	// GetRecord waits for it to end.
	GetRecord(ctx context.Context, account string, kind Kind, id string) (*Entry, error)
	// GetRecords returns the records of ids that exist, in the order of ids
	// (an id given twice comes once). None found is an empty slice, not an
	// error. Inside WithTx it holds the records found until the transaction
	// ends, as GetRecord does.
	GetRecords(ctx context.Context, account string, kind Kind, ids []string) ([]*Entry, error)
	// StreamRecords streams the records of ids that exist, in the order
	// of ids (an id given twice comes once), reading a few at a time: the
	// memory it holds grows neither with the number of ids nor with the
	// sizes of the records beyond the one being yielded. The sequence
	// yields an error at most once, as its last element.
	StreamRecords(ctx context.Context, account string, kind Kind, ids []string) iter.Seq2[*Entry, error]
	// LockKind, inside WithTx, holds every id of kind in account that has
	// no record yet until the transaction ends: GetRecord of such an id in
	// another transaction waits. With GetRecords it lets a batch
	// read-modify-write many records without holding one lock per id.
	// Outside a transaction, or where write transactions run one at a time
	// (SQLite), it does nothing.
	LockKind(ctx context.Context, account string, kind Kind) error
	// LockAccountWrites, inside WithTx, holds the account's writes of
	// several records until the transaction ends: LockAccountWrites of the
	// account in another transaction waits. The service calls it first,
	// before it reads or holds any record, in every transaction that
	// writes more than one record (an assignment change, which touches
	// the other side; a delete, which changes the records naming it; a
	// clone; a batch): two such transactions then never hold records the
	// other waits for, so they cannot deadlock. Outside a transaction, or
	// where write transactions run one at a time (SQLite), it does
	// nothing.
	LockAccountWrites(ctx context.Context, account string) error
	// ExistingIDs returns the ids of ids that name a record of kind, in
	// no particular order, without reading the records.
	ExistingIDs(ctx context.Context, account string, kind Kind, ids []string) ([]string, error)
	// HoldReferenced is ExistingIDs that, inside WithTx, also holds the
	// records found until the transaction ends against LockForDelete in
	// another transaction (which waits), though not against updates: a
	// reference checked with it keeps its target until the commit. It
	// takes the records in ascending id order. Outside a transaction, or
	// where write transactions run one at a time (SQLite), it is
	// ExistingIDs.
	HoldReferenced(ctx context.Context, account string, kind Kind, ids []string) ([]string, error)
	// LockForDelete, inside WithTx, holds the records of ids until the
	// transaction ends, in ascending id order, against every other lock
	// (HoldReferenced and GetRecord's included): it first waits for the
	// transactions holding them, so what they committed (a reference to
	// one) is seen by the statements after it. It returns the ids that
	// exist, in no particular order. Outside a transaction, or where
	// write transactions run one at a time (SQLite), it is ExistingIDs.
	LockForDelete(ctx context.Context, account string, kind Kind, ids []string) ([]string, error)
	// ListRecords streams the records p selects in ascending id order,
	// without holding them all in memory. The sequence yields an error at
	// most once, as its last element.
	ListRecords(ctx context.Context, p ListParams) iter.Seq2[*Entry, error]
	// PutRecord inserts e, or replaces the stored record of the same
	// account, kind and id. Its urlAlias values (per language), the
	// references it makes and its index terms (RecordIndex.Terms, and
	// the MissingTerms of the account's languages as stored) are indexed
	// with it. It does not check the
	// aliases: the caller does, in the same transaction (AliasHolder). An
	// alias another record of the kind holds in the language fails the
	// write as a race (IsRace, CodeUnavailable): the holder took it after
	// the caller looked, and the transaction run again sees it. The
	// assignment lists in e.Record are ignored (see AssignmentStore).
	PutRecord(ctx context.Context, e *Entry) error
	// PutRecords is PutRecord of several records of one account and kind
	// with distinct ids, in a few statements: all are written or none. An
	// alias held by a record outside the set fails it as a race, as
	// PutRecord; the set's old aliases are released first, so two of its
	// records may swap theirs. Two of them naming the same alias in a
	// language is the caller's mistake (CodeInternal).
	PutRecords(ctx context.Context, entries []*Entry) error
	// DeleteRecord removes a record, its aliases, the references it makes,
	// its index terms and every assignment it is part of. CodeNotFound when there is none.
	DeleteRecord(ctx context.Context, account string, kind Kind, id string) error
	// TouchRecord sets the Updated instant of a record without changing its
	// document. CodeNotFound when there is none.
	TouchRecord(ctx context.Context, account string, kind Kind, id string, at time.Time) error
	// CountAccess adds one to a record's StatsAccess and sets its
	// StatsLastAccess to at, atomically. CodeNotFound when there is none.
	CountAccess(ctx context.Context, account string, kind Kind, id string, at time.Time) error
	// AliasHolder returns the id of the record of kind holding alias in
	// lang. CodeNotFound when none does.
	AliasHolder(ctx context.Context, account string, kind Kind, lang, alias string) (string, error)
	// AliasHolders returns, for those of aliases held in lang by a record
	// of kind, the holder's id by alias.
	AliasHolders(ctx context.Context, account string, kind Kind, lang string, aliases []string) (map[string]string, error)
	// AliasNumbers returns, by base of p.Bases, the highest number of an
	// alias of p.Kind in p.Lang with that base (see SplitAlias: base itself
	// counts as 1), leaving out p.Skip; a base no alias has is absent. Each
	// base is one look-up of the alias index, however many aliases share it.
	AliasNumbers(ctx context.Context, p AliasNumberParams) (map[string]int64, error)
	// LockAlias, inside WithTx, holds base in lang until the transaction
	// ends: LockAlias of the same base in another transaction waits, so
	// writers that number one base take the numbers one after the other.
	// Outside a transaction, or where write transactions run one at a time
	// (SQLite), it does nothing.
	LockAlias(ctx context.Context, account string, kind Kind, lang, base string) error
	// BrowseRecords returns the records q selects, at most q.Limit, in
	// q's order from after q.After (BrowseQuery). The store answers from
	// its indexes: a filter held by few records gives the candidates,
	// read by key; otherwise the order's own index drives, each record
	// read tested for the filters.
	BrowseRecords(ctx context.Context, q BrowseQuery) ([]*Entry, error)
	// TermValues returns the distinct index terms in r that records of
	// kind hold, in byte order, at most limit: one look-up of the terms'
	// key a value, however many records share it.
	TermValues(ctx context.Context, account string, kind Kind, r TermRange, limit int) ([]string, error)
	// Referrers lists every reference to id made by other records'
	// documents whose target (Reference.ToKind) is one of targets, in
	// (kind, id, field) order. The references to a record of kind K are
	// those of ReferenceTargets(K): the caller says which targets a kind
	// answers to. Assignments are not references: read them with
	// AssignmentStore.
	Referrers(ctx context.Context, account string, targets []string, id string) ([]Reference, error)
}

// BrowseQuery selects a page of the records BrowseRecords returns, in
// one of the orders of the admin's lists. Ties of a sort key are broken
// by id; Desc reverses both.
type BrowseQuery struct {
	// Account and Kind are the records listed: always both.
	Account string
	Kind    Kind
	// Sort is the order: BrowseID, BrowseUpdated (Entry.Updated, then
	// id) or BrowseTitle, the records with a title in TitleLang by its
	// sort key (TitleSortKey), or, with Untitled, the records without a
	// title in TitleLang (one of the account's languages) by id.
	Sort      BrowseSort
	TitleLang string
	Untitled  bool
	Desc      bool
	// After, when set, keeps the records after it in the order.
	After *BrowseKey
	// Limit is the most records returned (above 0).
	Limit int
	// Published filters by the published flag.
	Published Published
	// MapID, when set, keeps Resources assigned to that Map in either role.
	MapID string
	// Terms keeps the records holding a term in each range, as
	// ListParams.Terms: a search's words, a type, a category, a language
	// without a title.
	Terms []TermRange
}

// BrowseKey is a position in the order of a BrowseQuery: the record of
// id, with its sort key (Title for BrowseTitle, Updated for
// BrowseUpdated).
type BrowseKey struct {
	ID      string
	Title   string
	Updated time.Time
}

// AliasNumberParams selects the aliases AliasNumbers reads.
type AliasNumberParams struct {
	// Account, Kind and Lang are where the aliases are unique.
	Account string
	Kind    Kind
	Lang    string
	// Bases are the bases asked (SplitAlias).
	Bases []string
	// Skip, when set, are numbers not counted, of every base: a caller
	// that released aliases it has not stored yet names theirs.
	Skip []int64
	// Below, when above 0, counts only the numbers below it: the highest
	// number under a run of numbers given by hand (uniqueAlias).
	Below int64
}

// Role is the role of a Resource in a Map.
type Role string

// The two roles; a Resource has at most one per Map.
const (
	RolePrimary   Role = "primary"
	RoleSecondary Role = "secondary"
)

// AssignmentStore keeps the Resource-Map assignments: one fact per
// (Map, Resource) pair with its role, from which both sides are read, each
// side in its own order.
type AssignmentStore interface {
	// SetMapResources makes the Map's list of role exactly resourceIDs, in
	// that order (an id given twice counts once, at its first place). A
	// Resource in the list loses its other role in this Map; a Resource new
	// to the Map is appended to the end of its own list of that role.
	SetMapResources(ctx context.Context, account, mapID string, role Role, resourceIDs []string) error
	// SetResourceMaps is SetMapResources seen from the Resource: its list of
	// role becomes exactly mapIDs; a Map new to it gets the Resource at the
	// end of the Map's list of that role.
	SetResourceMaps(ctx context.Context, account, resourceID string, role Role, mapIDs []string) error
	// AppendAssignments gives owners (Resources or Maps, as owners says)
	// that have no assignment yet their lists, as SetResourceMaps or
	// SetMapResources called for each list in order would: the owner's
	// list of the role becomes its ids, each appended to the end of the
	// other side's list of that role. In a few statements, for batches. An
	// owner that has assignments, or two lists of one owner that share an
	// id or a role, are the caller's mistake.
	AppendAssignments(ctx context.Context, account string, owners Kind, lists []AssignmentList) error
	// MapResources returns the Map's Resources of role, in the Map's order.
	MapResources(ctx context.Context, account, mapID string, role Role) ([]string, error)
	// ResourceMaps returns the Resource's Maps of role, in its own order.
	ResourceMaps(ctx context.Context, account, resourceID string, role Role) ([]string, error)
}

// AssignmentList is one list of AppendAssignments: the ids of the other
// side an owner has in role, in order.
type AssignmentList struct {
	// Owner is the id of the Resource or Map the list is of.
	Owner string
	Role  Role
	// IDs are the other side's ids, in order.
	IDs []string
}

// Reference is one id a record's document names.
type Reference struct {
	// FromKind and FromID are the record whose document names the target.
	FromKind Kind
	FromID   string
	// Field is the wire path of the list or field, without indexes and
	// language suffixes: "poiResourceIds", "tourMultiday.resourceIds",
	// "mapId".
	Field string
	// ToKind is the target named: a kind ("resource", "map"), or
	// RefMapOrLanding for a Landing block's resourceIds.
	ToKind string
	// ToID is the id named.
	ToID string
	// Single is true for a single reference (Landing.mapId,
	// Proposal.mapId, Map.trackResourceId): the named record cannot be
	// deleted while it stands.
	Single bool
}

// Account owns records, users, tokens and batches.
type Account struct {
	// ID is a valid record id (ValidID), unique in the store.
	ID string
	// Langs are the languages of its records.
	Langs Languages
}

// User is a person who logs in.
type User struct {
	Name         string   // unique in the deployment
	Account      string   // the account it acts for
	PasswordHash string   // PHC string (argon2id)
	Perms        []string // as Identity.Perms
	Disabled     bool     // refuses logins and the user's tokens
	// Changed is when the password, the perms or Disabled last changed.
	Changed time.Time
	// Created is when the user was made (zero for users made before it
	// was kept); UpdateUser leaves it.
	Created time.Time
}

// RefreshToken is a stored refresh token; its value is kept only as a
// SHA-256 hash.
type RefreshToken struct {
	Hash    []byte // SHA-256 of the token's value
	Family  string // shared by the tokens of one login, revoked together
	Parent  []byte // hash of the token it replaced; nil for the first
	User    string
	Account string
	Issued  time.Time
	// Expires is the idle expiry of this token; FamilyExpires the absolute
	// expiry of its family.
	Expires       time.Time
	FamilyExpires time.Time
	Used          time.Time // zero: not spent
	Revoked       time.Time // zero: not revoked
}

// LoginAttempt is a login attempt for ReserveLogin to decide on. The
// store compares counts with the limits it is given; the limits and what
// an address is are the Service's.
type LoginAttempt struct {
	// Username is the name tried, whether a user has it or not.
	Username string
	// Address is the client address the attempt comes from, as the
	// Service names it; any string, "" included, is one address.
	Address string
	// At is the attempt's time, stored as its failure's.
	At time.Time
	// Since starts the window: failures at or after it count.
	Since time.Time
	// AddressLimit refuses the attempt when (Username, Address) has this
	// many failures in the window. A limit of 0 is none.
	AddressLimit int
	// UserLimit refuses the attempt when Username has this many failures
	// in the window over all addresses, unless Address is known: a
	// success from it was recorded (LoginSucceeded) at or after
	// KnownSince. A limit of 0 is none.
	UserLimit int
	// KnownSince: see UserLimit.
	KnownSince time.Time
}

// LoginReservation is what ReserveLogin decided.
type LoginReservation struct {
	// Allowed is true when the attempt was stored as a failure: the
	// caller checks the password, and on success calls LoginSucceeded.
	Allowed bool
	// HeldBy, for a refused attempt, is the time of the failure whose
	// leaving the window lifts the refusal (the later one when both limits
	// refuse); zero for an allowed attempt.
	HeldBy time.Time
}

// AccountStore keeps accounts, users and login throttling.
type AccountStore interface {
	// CreateAccount stores a new account. CodeConflict when the id exists.
	CreateAccount(ctx context.Context, a Account) error
	// GetAccount returns an account. CodeNotFound when there is none.
	GetAccount(ctx context.Context, id string) (Account, error)
	// ListAccounts returns every account in id order.
	ListAccounts(ctx context.Context) ([]Account, error)
	// UpdateAccount replaces an account's languages. CodeNotFound when
	// there is none. The index terms of the account's records follow: a
	// language added gives every record without a title in it its
	// MissingTerms term, a language removed takes them away.
	UpdateAccount(ctx context.Context, a Account) error
	// CreateUser stores a new user. CodeConflict when the name exists;
	// CodeNotFound when the account does not.
	CreateUser(ctx context.Context, u User) error
	// GetUser returns a user. CodeNotFound when there is none.
	GetUser(ctx context.Context, name string) (User, error)
	// UpdateUser replaces the password hash, perms, disabled flag and
	// Changed of a user. CodeNotFound when there is none.
	UpdateUser(ctx context.Context, u User) error
	// ListUsers returns the users of an account ("" for all) in name order.
	ListUsers(ctx context.Context, account string) ([]User, error)
	// DeleteUser removes a user and the addresses it logged in from
	// (its refresh tokens and login attempts are the caller's to revoke
	// and reset). CodeNotFound when there is none.
	DeleteUser(ctx context.Context, name string) error
	// ReserveLogin decides, in one step that concurrent calls for the same
	// username take one at a time (on every instance of one database),
	// whether a login attempt may have its password checked, and when it
	// may, stores the attempt as a failure of (Username, Address) at At,
	// before the password is checked: a burst of attempts is held to the
	// limits. Failures of Username before a.Since are forgotten on the
	// way. Nothing is stored for a refused attempt; a refusal is no error
	// (errors are CodeInternal only).
	ReserveLogin(ctx context.Context, a LoginAttempt) (LoginReservation, error)
	// LoginSucceeded forgets the failures of username from address (the
	// reservation of the attempt that succeeded included) and records
	// address as known to username at at.
	LoginSucceeded(ctx context.Context, username, address string, at time.Time) error
	// ReleaseLogin forgets the one attempt ReserveLogin stored for
	// username from address at at, when its password could not be checked
	// (the check failed for a reason of the system's, not a wrong
	// password): such an attempt is no failure.
	ReleaseLogin(ctx context.Context, username, address string, at time.Time) error
	// LoginFailures returns the failures of username from every address
	// since since and the time of the oldest of them.
	LoginFailures(ctx context.Context, username string, since time.Time) (int, time.Time, error)
	// ResetLoginFailures forgets the failures of username from every
	// address (known addresses stay known).
	ResetLoginFailures(ctx context.Context, username string) error
	// PurgeLoginFailures forgets every failure before before, of every
	// username, and returns how many.
	PurgeLoginFailures(ctx context.Context, before time.Time) (int, error)
	// PurgeKnownAddresses forgets the known addresses whose last success
	// is before before, of every username, and returns how many.
	PurgeKnownAddresses(ctx context.Context, before time.Time) (int, error)
	// Setting returns a deployment-wide setting. CodeNotFound when unset.
	Setting(ctx context.Context, key string) (string, error)
	// InitSetting stores value under key unless the key is set, and
	// returns the value stored (the existing one when it was set).
	InitSetting(ctx context.Context, key, value string) (string, error)
}

// TokenStore keeps refresh tokens.
type TokenStore interface {
	// CreateRefreshToken stores a new token. CodeConflict when its hash
	// exists.
	CreateRefreshToken(ctx context.Context, t RefreshToken) error
	// GetRefreshToken returns the token with hash. CodeNotFound when none.
	GetRefreshToken(ctx context.Context, hash []byte) (RefreshToken, error)
	// SpendRefreshToken marks the token used at at, only when it is
	// neither used nor revoked, in one conditional update; it reports
	// whether this call spent it. Of concurrent calls, exactly one wins.
	SpendRefreshToken(ctx context.Context, hash []byte, at time.Time) (bool, error)
	// SpendLiveRefreshTokens marks every token of family that is neither
	// used nor revoked used at at: a rotation spends the siblings of the
	// token it spent.
	SpendLiveRefreshTokens(ctx context.Context, family string, at time.Time) error
	// LiveRefreshTokens returns the tokens of family that are neither
	// used nor revoked (expired ones included), in no order.
	LiveRefreshTokens(ctx context.Context, family string) ([]RefreshToken, error)
	// RevokeFamily revokes every token of a family not yet revoked.
	RevokeFamily(ctx context.Context, family string, at time.Time) error
	// RevokeUserTokens revokes every token of a user not yet revoked.
	RevokeUserTokens(ctx context.Context, user string, at time.Time) error
	// LockUserTokens, inside WithTx, holds the refresh tokens of user
	// until the transaction ends: of the transactions that take it (on
	// every instance of one database), one runs at a time, and each sees
	// what the one before it committed. A rotation and a revocation of
	// the user's tokens take it first, so a revocation never misses the
	// successor of a rotation in flight. Outside a transaction it does
	// nothing.
	LockUserTokens(ctx context.Context, user string) error
	// PurgeRefreshTokens deletes tokens whose family expired before
	// before, and returns how many.
	PurgeRefreshTokens(ctx context.Context, before time.Time) (int, error)
}

// BatchStatus is the state of a batch.
type BatchStatus string

// The batch states: waiting -> processing -> done | error.
const (
	BatchWaiting    BatchStatus = "waiting"
	BatchProcessing BatchStatus = "processing"
	BatchDone       BatchStatus = "done"
	BatchError      BatchStatus = "error"
)

// Batch is a queued batch create/update.
type Batch struct {
	// ID is the batch's id, unique in the store; Account and Kind are
	// whose records it holds.
	ID      string
	Account string
	Kind    Kind
	// Payload is the JSON array as received: set for EnqueueBatch, read
	// back with BatchPayload (the other calls leave it empty).
	Payload []byte
	// Count is the number of records in Payload.
	Count  int
	Status BatchStatus
	// Requested is when it was enqueued.
	Requested time.Time
	// StatusAt is when Status last changed.
	StatusAt time.Time
	// Owner and LeaseUntil name the worker applying it and until when.
	Owner      string
	LeaseUntil time.Time
	// Attempts counts claims.
	Attempts int
	// Processed is how many records the current attempt (claim) has
	// applied so far, as its worker last wrote it with the lease's
	// heartbeat (DECISIONS §10); ClaimBatch sets it to 0 and it never
	// decreases within a claim.
	Processed int
	// Result is set when Status is done or error.
	Result BatchResult
}

// BatchResult is what applying a batch did.
type BatchResult struct {
	// Created, Updated and Skipped count the records of a done batch by
	// Outcome.
	Created, Updated, Skipped int
	// Error is why a batch ended in error, safe to show its submitter.
	Error string
	// Outcomes are the records of a done batch, one per record in batch
	// order: set for FinishBatch, read back with BatchOutcomes (GetBatch
	// leaves it empty).
	Outcomes []RecordOutcome
}

// RecordOutcome is what a done batch did to one of its records.
type RecordOutcome struct {
	// ID is the record's id.
	ID string
	// Outcome is Created, Updated, Skipped or Deleted (a delete of a
	// record already gone is Skipped).
	Outcome Outcome
}

// BatchStore keeps the batch queue.
type BatchStore interface {
	// EnqueueBatch stores a waiting batch durably. CodeConflict when the id
	// exists.
	EnqueueBatch(ctx context.Context, b *Batch) error
	// ClaimBatch takes the oldest batch that is waiting, or processing with
	// a lease that ended before now, for owner until leaseUntil, and
	// returns it without its payload (status processing, attempts + 1,
	// processed 0).
	// Two claimers never get the same batch. Without
	// Features.ConcurrentBatchClaims batches are claimed strictly in
	// order: none while the oldest unfinished one is processing under its
	// lease. CodeNotFound when there is none.
	ClaimBatch(ctx context.Context, owner string, now, leaseUntil time.Time) (*Batch, error)
	// BatchPayload returns the payload of a batch not yet finished, in a
	// slice the caller owns. CodeNotFound for a finished or unknown batch.
	// Apart from ClaimBatch, so a worker that has the payload in memory
	// (its own process submitted it) does not read megabytes back.
	BatchPayload(ctx context.Context, id string) ([]byte, error)
	// HeartbeatBatch extends the lease of a batch owner holds and records
	// that it has applied processed records, unless it said more before
	// (Batch.Processed never decreases within a claim). CodeConflict when
	// owner no longer holds it.
	HeartbeatBatch(ctx context.Context, id, owner string, leaseUntil time.Time, processed int) error
	// FinishBatch sets a batch owner holds to status (done or error) with
	// its result at at, r.Outcomes included. CodeConflict when owner no
	// longer holds it.
	FinishBatch(ctx context.Context, id, owner string, status BatchStatus, r BatchResult, at time.Time) error
	// GetBatch returns a batch of the account and kind, without its
	// payload. CodeNotFound when there is none.
	GetBatch(ctx context.Context, account string, kind Kind, id string) (*Batch, error)
	// BatchOutcomes returns the outcomes of the records of a done batch of
	// the account and kind, in batch order (none for a batch not done).
	// CodeNotFound when there is no such batch.
	BatchOutcomes(ctx context.Context, account string, kind Kind, id string) ([]RecordOutcome, error)
	// PurgeBatches deletes done and error batches whose status changed
	// before before, and returns how many.
	PurgeBatches(ctx context.Context, before time.Time) (int, error)
	// BatchQueue counts the batches waiting and processing over every
	// account, with the submission time of the oldest waiting one.
	BatchQueue(ctx context.Context) (BatchQueue, error)
}

// batchWorkKey marks a context as a batch worker's (WithBatchWork).
type batchWorkKey struct{}

// WithBatchWork returns ctx marked as the work of a batch worker. A store
// gives a transaction begun (WithTx) with such a context the limits of a
// batch, which holds its locks and runs its statements far longer than a
// request may (PostgreSQL: longer statement and lock timeouts), and a
// request's limits to everything else.
func WithBatchWork(ctx context.Context) context.Context {
	return context.WithValue(ctx, batchWorkKey{}, true)
}

// IsBatchWork reports whether ctx was marked by WithBatchWork.
func IsBatchWork(ctx context.Context) bool {
	b, _ := ctx.Value(batchWorkKey{}).(bool)
	return b
}
