package cms

import (
	"context"
	"errors"
	"fmt"
	"slices"
)

// languageChunk is how many records of a kind one transaction gives an
// alias in a new language: short enough that other writers wait little.
const languageChunk = 256

// AddLanguage adds lang to an account's languages (after the others) and
// gives every record of the account a urlAlias in it, made as a new
// record's would be (the slug of its title in lang, else of its alias in
// the default language, numbered to be unique in lang). Records read the
// new language's other fields as unset. It returns how many records got
// an alias.
//
// Requests follow the account's languages of now whatever their token
// (AccountLanguages), so a record created meanwhile gets its alias in
// lang itself; calling AddLanguage again (lang already configured) gives
// one to any record still without, and changes nothing else. Errors:
// CodeInvalid for a code that is not two lowercase letters, CodeNotFound
// for no account.
func (s *Service) AddLanguage(ctx context.Context, account, lang string) (int, error) {
	if !isLangCode(lang) {
		return 0, invalid("language %q: want two lowercase letters", lang)
	}
	acc, err := s.changeAccount(ctx, account, func(acc *Account) error {
		if slices.Contains(acc.Langs.All, lang) {
			return nil
		}
		langs, err := NewLanguages(acc.Langs.Default, append(slices.Clone(acc.Langs.All), lang)...)
		if err != nil {
			return invalid("account %s: %v", account, err)
		}
		acc.Langs = langs
		return nil
	})
	if err != nil {
		return 0, err
	}
	p := Principal{Account: account, Langs: acc.Langs}
	made := 0
	for _, kind := range Kinds() {
		n, err := s.aliasKind(ctx, p, kind, lang)
		made += n
		if err != nil {
			return made, err
		}
	}
	if made > 0 {
		s.log.InfoContext(ctx, "cms: records given an alias in a new language", "account", account, "lang", lang, "records", made)
	}
	return made, nil
}

// aliasKind gives the records of kind without an alias in lang one, a
// chunk of ids per transaction, in id order.
func (s *Service) aliasKind(ctx context.Context, p Principal, kind Kind, lang string) (int, error) {
	made, cursor := 0, ""
	for {
		var ids []string
		for e, err := range s.store.ListRecords(ctx, ListParams{Account: p.Account, Kind: kind,
			Published: PublishedAny, After: cursor, Limit: languageChunk}) {
			if err != nil {
				return made, err
			}
			ids = append(ids, e.Record.RecordID())
		}
		if len(ids) == 0 {
			return made, nil
		}
		n := 0
		err := s.inTx(ctx, func(tx Store) error {
			n = 0
			for _, id := range ids {
				given, err := s.aliasIn(ctx, tx, p, kind, id, lang)
				if err != nil {
					return err
				}
				if given {
					n++
				}
			}
			return nil
		})
		if err != nil {
			return made, err
		}
		made += n
		cursor = ids[len(ids)-1]
	}
}

// aliasIn gives one record an alias in lang when it has none, inside tx;
// it tells whether it did. A record deleted meanwhile is left alone.
func (s *Service) aliasIn(ctx context.Context, tx Store, p Principal, kind Kind, id, lang string) (bool, error) {
	e, err := tx.GetRecord(ctx, p.Account, kind, id)
	if ErrorCode(err) == CodeNotFound {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	aliases := e.Record.Common().URLAlias
	if (*aliases)[lang] != "" {
		return false, nil
	}
	indexed := s.doc.Index(e.Record)
	base := aliasBase((*e.Record.Common().Title)[lang], id, (*aliases)[p.Langs.Default], lang == p.Langs.Default)
	alias, err := uniqueAlias(ctx, tx, p.Account, kind, lang, base, "")
	if errors.Is(err, errNoFreeAlias) {
		return false, &Error{Code: CodeConflict, Message: fmt.Sprintf("%s %s: no number is left for %s in %s",
			kind.Title(), id, aliasStem(base), lang)}
	}
	if err != nil {
		return false, err
	}
	if *aliases == nil {
		*aliases = Langs[string]{}
	}
	(*aliases)[lang] = alias
	e.Indexed = &indexed
	e.Updated = after(e.Updated, s.Now())
	return true, tx.PutRecord(ctx, e)
}

// SetDefaultLanguage makes lang, one of the account's languages, its
// default: the bare field names (title, urlAlias, ...) address lang from
// then on. Stored values are kept per language, so nothing else changes.
// Errors: CodeInvalid when lang is not one of the account's languages,
// CodeNotFound for no account.
func (s *Service) SetDefaultLanguage(ctx context.Context, account, lang string) error {
	_, err := s.changeAccount(ctx, account, func(acc *Account) error {
		if !slices.Contains(acc.Langs.All, lang) {
			return invalid("language %q: not one of account %s's languages (%s); add it first", lang, account, acc.Langs)
		}
		acc.Langs.Default = lang
		return nil
	})
	return err
}

// changeAccount reads an account, lets change change it and stores it,
// in one transaction that holds the account's write lock: two changes at
// once (a language added on one instance, the default changed on
// another) both stay, each with its audit entry. It returns the account
// as stored.
func (s *Service) changeAccount(ctx context.Context, id string, change func(*Account) error) (Account, error) {
	var acc Account
	err := s.inTx(ctx, func(tx Store) error {
		if err := tx.LockAccountWrites(ctx, id); err != nil {
			return err
		}
		var err error
		if acc, err = tx.GetAccount(ctx, id); err != nil {
			return err
		}
		before := acc.Langs
		acc.Langs.All = slices.Clone(acc.Langs.All)
		if err := change(&acc); err != nil {
			return err
		}
		if acc.Langs.String() == before.String() {
			return nil // nothing changed
		}
		if err := tx.UpdateAccount(ctx, acc); err != nil {
			return err
		}
		return s.auditLanguages(ctx, tx, id, before, acc.Langs)
	})
	return acc, err
}
