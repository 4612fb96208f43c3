-- Votes sent with a public key are unverified: whoever holds the browser key can name any
-- userId. `verified` says whether the event came with a secret key (the application vouches for
-- its userId). An unverified vote never replaces a verified one in its voter's slot; it is kept,
-- marked replaced by the verified vote. Events stored before this migration count as verified:
-- nothing tells them apart any more, and they keep the standing they had.
ALTER TABLE feedback_events ADD COLUMN verified boolean NOT NULL DEFAULT true;
