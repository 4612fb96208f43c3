-- Schema 51: the writer of a day's rollup (issue 21). A rollup writes a day's totals in one
-- transaction and its user sums after it, a part a transaction (2,000 users at most): a busy day's
-- first rollup inserts every user of the day, and in one transaction that held the embedded
-- database's one connection for 0.6-0.7 s, every request waiting (docs/benchmarks.md, "Thirteenth
-- session"). The totals' transaction sets `writer` to the rollup's own token; each part goes on
-- only while the token is still its own, so a later rollup of the same day (which read later)
-- stops an earlier one's parts and never has its rows overwritten by them.
ALTER TABLE rollup_dirty ADD COLUMN writer text;
