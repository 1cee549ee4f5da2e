package cms

// Opt is a field the contract does not allow to be null: it is either absent
// (Set false) or holds Value. Absent matters because an update keeps every
// field the body leaves out (merge semantics).
type Opt[T any] struct {
	// Value is the value when Set.
	Value T
	// Set is false for a field the body leaves out.
	Set bool
}

// Some returns an Opt holding v.
func Some[T any](v T) Opt[T] { return Opt[T]{Value: v, Set: true} }

// JSONSchemaAlias lets the schema reflector describe Opt[T] as T.
func (Opt[T]) JSONSchemaAlias() any { var v T; return v }

// Null is a nullable field with three states: absent (Set false), null (Set
// true, Valid false) and a value (Set and Valid true).
type Null[T any] struct {
	// Value is the value when Valid.
	Value T
	// Valid is false for null or absent.
	Valid bool
	// Set is false for a field the body leaves out.
	Set bool
}

// NullOf returns a Null holding v.
func NullOf[T any](v T) Null[T] { return Null[T]{Value: v, Valid: true, Set: true} }

// Nil returns an explicit null.
func Nil[T any]() Null[T] { return Null[T]{Set: true} }

// JSONSchemaAlias lets the schema reflector describe Null[T] as T.
func (Null[T]) JSONSchemaAlias() any { var v T; return v }

// Langs holds a multi-language field: one value per language code. A language
// missing from the map is absent from the body (or never set). On the wire the
// account's default language is the bare field name and every other language
// is name_<code>.
type Langs[T any] map[string]T

// JSONSchemaAlias lets the schema reflector describe Langs[T] as T.
func (Langs[T]) JSONSchemaAlias() any { var v T; return v }
