-- When each user was made (microseconds; 0 for users made before this
-- was kept): access tokens issued before it are not this user's, so a
-- user deleted and made again with the same name does not inherit them.
ALTER TABLE users ADD COLUMN IF NOT EXISTS created_at BIGINT NOT NULL DEFAULT 0;
