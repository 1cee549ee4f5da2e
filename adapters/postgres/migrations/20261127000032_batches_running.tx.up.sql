-- An account's unfinished batches (waiting or processing) by request
-- time, for the admin's overview: the finished batches the queue keeps
-- for a while are not in it, so the index stays as small as the queue.
CREATE INDEX IF NOT EXISTS batches_running ON batches (account, requested_at, id) WHERE status IN ('waiting', 'processing');
