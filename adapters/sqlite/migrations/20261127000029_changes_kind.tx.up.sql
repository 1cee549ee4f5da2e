-- An account's changes of one kind in feed order: a reader of the
-- changes feed (or a webhook, a subscription) that asks for some kinds
-- walks each kind's own, so a rare kind never costs a walk past every
-- change of the others.
CREATE INDEX IF NOT EXISTS changes_kind ON changes ((account || '/' || kind), id);
