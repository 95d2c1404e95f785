-- The SQLite credit poller reads rows after the last rowid it saw (ledger-reader-sqlite.ts): an index on
-- created_at alone was written with every record batch and read by nothing (Postgres dropped its own in 0001).
DROP INDEX `ledger_created_idx`;