-- Schema 39: human review (issue 27; docs/review.md). Reviewer keys, review queues, their items,
-- reservations and reviews.
--
-- api_keys.kind gains 'reviewer': a key that may only list the queues it is a member of, reserve
-- and review their items, and read what an item shows (http/auth.ts). Its name is who reviews.
ALTER TABLE api_keys DROP CONSTRAINT IF EXISTS api_keys_kind_check;
ALTER TABLE api_keys ADD CONSTRAINT api_keys_kind_check CHECK (kind IN ('secret', 'public', 'reviewer'));

-- review_queues: one row per queue.
--   kind: single (one response per item) | pairwise (two responses to the same query per item).
--   rubric: { verdict, issues, qualityScores, correction, comment: booleans, scoreConfigs?: [ids] }.
--   members: the reviewer key ids that may review it (a JSON array).
--   rules: [{ filter, sample }]: the pipeline adds a response matching `filter`, sampled per response.
--   dataset_id: the dataset its approved or corrected items go to (datasets add the check).
CREATE TABLE review_queues (
  workspace_id text NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  id text NOT NULL,
  name text NOT NULL,
  kind text NOT NULL CHECK (kind IN ('single', 'pairwise')),
  instructions text NOT NULL DEFAULT '',
  rubric jsonb NOT NULL,
  reviewers_per_item smallint NOT NULL DEFAULT 1 CHECK (reviewers_per_item BETWEEN 1 AND 5),
  reservation_seconds integer NOT NULL DEFAULT 600 CHECK (reservation_seconds > 0),
  members jsonb NOT NULL DEFAULT '[]'::jsonb,
  rules jsonb NOT NULL DEFAULT '[]'::jsonb,
  dataset_id text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (workspace_id, id)
);

-- review_items: what a queue holds; one row per response (single) or pair (pairwise).
--   subject: the response id, or the pair's two ids in sorted order joined by a space: a response
--     (or a pair) is in a queue once.
--   response_b_id: the pair's second response (null for single items).
--   reviews: how many reviews it has; state 'done' once that reaches the queue's reviewers_per_item.
CREATE TABLE review_items (
  workspace_id text NOT NULL,
  queue_id text NOT NULL,
  id text NOT NULL,
  subject text NOT NULL,
  response_id text NOT NULL,
  response_b_id text,
  reviews smallint NOT NULL DEFAULT 0,
  state text NOT NULL DEFAULT 'open' CHECK (state IN ('open', 'done')),
  added_by text NOT NULL DEFAULT 'hand' CHECK (added_by IN ('hand', 'rule')),
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (workspace_id, id),
  UNIQUE (workspace_id, queue_id, subject),
  FOREIGN KEY (workspace_id, queue_id) REFERENCES review_queues (workspace_id, id) ON DELETE CASCADE
);
-- Serves `next`: a queue's open items in the order they came.
CREATE INDEX review_items_open ON review_items (workspace_id, queue_id, id) WHERE state = 'open';

-- review_reservations: who holds (or skipped) an item. A live reservation counts against the
-- item's reviewers_per_item until it expires; a skip keeps the item from that reviewer's `next`.
--   reviewer: the reviewer's name (its key's name).
--   first_response_id: for pairwise, the response shown first to this reviewer (recorded).
CREATE TABLE review_reservations (
  workspace_id text NOT NULL,
  queue_id text NOT NULL,
  item_id text NOT NULL,
  reviewer text NOT NULL,
  reserved_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL,
  skipped boolean NOT NULL DEFAULT false,
  first_response_id text,
  PRIMARY KEY (workspace_id, item_id, reviewer),
  FOREIGN KEY (workspace_id, item_id) REFERENCES review_items (workspace_id, id) ON DELETE CASCADE
);
-- Serves `next`'s first look: the reservation this reviewer holds in a queue.
CREATE INDEX review_reservations_reviewer ON review_reservations (workspace_id, queue_id, reviewer);

-- reviews: one row per (item, reviewer); a later review by the same reviewer replaces it (its
-- events retract the earlier ones'). Kept easy to read for the agreement statistics.
--   label: the verdict (single), or the preferred response id or 'tie' (pairwise); null when a
--     single review gave no verdict.
--   scores: the review's quality scores and named scores, { name: value }.
--   body: the review as submitted (validated).
--   seconds: from the reservation to the review (null: reviewed without a live reservation).
--   first_response_id: for pairwise, the response this reviewer was shown first.
--   event_ids: the feedback events the review became (source review); version counts replacements.
CREATE TABLE reviews (
  workspace_id text NOT NULL,
  queue_id text NOT NULL,
  item_id text NOT NULL,
  reviewer text NOT NULL,
  reviewer_key_id text,
  label text,
  scores jsonb NOT NULL DEFAULT '{}'::jsonb,
  body jsonb NOT NULL,
  seconds double precision,
  first_response_id text,
  event_ids jsonb NOT NULL DEFAULT '[]'::jsonb,
  version integer NOT NULL DEFAULT 1,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (workspace_id, item_id, reviewer),
  FOREIGN KEY (workspace_id, item_id) REFERENCES review_items (workspace_id, id) ON DELETE CASCADE
);
-- Serves a queue's reviews (agreement, per-reviewer figures).
CREATE INDEX reviews_queue ON reviews (workspace_id, queue_id, reviewer);
