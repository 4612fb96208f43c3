-- Schema 12: the rollup's pace. A day is recomputed whole; a busy day (today, while events keep
-- arriving) was recomputed at every rollup run however long it took, and on a 2-core machine its
-- reads and writes (about 10 s for 100,000 events with the stats tables) took the Postgres CPU the
-- pipeline needs: commit -> live counter p50 went from 27 ms to 766 ms at 2,500 events/s. A mark
-- that is still dirty after its rollup (its version moved meanwhile) waits until not_before: ten
-- times the rollup's own duration, so a day's rollups take at most a tenth of one connection.
-- NULL: roll up at the next run (a new mark, or a day that was quiet during its last rollup).
ALTER TABLE rollup_dirty ADD COLUMN not_before timestamptz;
