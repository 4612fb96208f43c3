-- feedloop schema 4: the effects outbox is applied under a lease, not a row lock. An applier
-- takes its rows in one short statement (setting lease_until), calls Redis and the stream with no
-- transaction open, then records what it applied in another short statement: a slow Redis or
-- NATS never holds a database connection or a lock. A lease that ends (a crashed applier) makes
-- the row free again; its effects are idempotent (the Lua applied-marker, JetStream's msg id).
ALTER TABLE pipeline_effects ADD COLUMN lease_until timestamptz;
