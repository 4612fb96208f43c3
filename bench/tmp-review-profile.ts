import pg from 'pg';
import { createFreshDatabase } from './bench-database.js';
import { openPostgres } from '../packages/server/src/db/postgres-client.js';
import { migrate } from '../packages/server/src/db/migrate.js';
import { createWorkspace } from '../packages/server/src/store/workspaces.js';
import { addReviewItems } from '../packages/server/src/store/review-items.js';
import { reserveNextItem } from '../packages/server/src/store/review-reservations.js';
import { reviewedResponses } from '../packages/server/src/store/review-item-content.js';
import { recordReview } from '../packages/server/src/store/reviews.js';

const database = await createFreshDatabase();
const db = await openPostgres(database.url, { max: 8 });
try {
  await migrate(db);
  const { workspace } = await createWorkspace(db, { name: 'p' });
  const ws = workspace.id;
  await db.query(`INSERT INTO responses (workspace_id, id, query, answer, created_at) SELECT $1, 'r' || g, 'q' || g, 'a' || g, now() FROM generate_series(1, 100000) g`, [ws]);
  await db.query(`INSERT INTO review_queues (workspace_id, id, name, kind, rubric) VALUES ($1, 'rq_1', 'q', 'single', '{}')`, [ws]);
  const ids = Array.from({ length: 100000 }, (_, i) => [`r${i + 1}`] as const);
  let t = performance.now();
  await addReviewItems(db, ws, 'rq_1', ids, 'hand');
  console.log('add items', performance.now() - t);
  const queue = { id: 'rq_1', reviewersPerItem: 1, reservationSeconds: 600, kind: 'single' as const };
  for (let i = 0; i < 5; i++) {
    t = performance.now();
    const r = await reserveNextItem(db, ws, queue, `rev${i}`);
    const t1 = performance.now();
    await reviewedResponses(db, ws, 'rq_1', [r!.responseId]);
    const t2 = performance.now();
    await recordReview(db, ws, queue, r!.itemId, { name: `rev${i}`, keyId: null }, { label: 'approved', scores: {}, body: {}, eventParts: ['review'] });
    console.log('reserve', (t1 - t).toFixed(1), 'content', (t2 - t1).toFixed(1), 'record', (performance.now() - t2).toFixed(1));
  }
  const c = new pg.Client({ connectionString: database.url });
  await c.connect();
  const plan = await c.query(`EXPLAIN ANALYZE SELECT i.id FROM review_items i
          WHERE i.workspace_id = $1 AND i.queue_id = 'rq_1' AND i.state = 'open' AND i.id > ''
            AND NOT EXISTS (SELECT 1 FROM reviews r WHERE r.workspace_id = i.workspace_id AND r.item_id = i.id AND r.reviewer = 'x')
            AND NOT EXISTS (SELECT 1 FROM review_reservations v WHERE v.workspace_id = i.workspace_id AND v.item_id = i.id AND v.reviewer = 'x' AND (v.skipped OR v.expires_at > now()))
            AND i.reviews + (SELECT count(*) FROM review_reservations v WHERE v.workspace_id = i.workspace_id AND v.item_id = i.id AND NOT v.skipped AND v.expires_at > now()) < 1
          ORDER BY i.id LIMIT 1 FOR UPDATE OF i SKIP LOCKED`, [ws]);
  console.log(plan.rows.map((r) => r['QUERY PLAN']).join('\n'));
  await c.end();
} finally {
  await db.close();
  await database.drop();
}
