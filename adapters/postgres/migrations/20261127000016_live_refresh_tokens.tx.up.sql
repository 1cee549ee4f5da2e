-- The tokens of a family that are neither used nor revoked: a rotation
-- spends them all (the siblings of the token rotated) and a grace answer
-- joins them, without reading the family's spent tokens.
CREATE INDEX IF NOT EXISTS refresh_tokens_live ON refresh_tokens (family) WHERE used_at IS NULL AND revoked_at IS NULL;
