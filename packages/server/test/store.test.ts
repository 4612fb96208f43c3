import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadMigrations, migrate } from '../src/db/migrate.js';
import type { SqlClient } from '../src/db/sql-client.js';
import { writeResponseBatch } from '../src/store/response-writer.js';
import { authenticateKey, createApiKey, listApiKeys, revokeApiKey } from '../src/store/api-keys.js';
import { createWorkspace, findWorkspace, listWorkspaces, updateWorkspaceSettings } from '../src/store/workspaces.js';
import { BACKENDS, type TestDatabase } from './harness.js';

for (const backend of BACKENDS) {
  describe.skipIf(!backend.available)(`store on ${backend.name}`, () => {
    let database: TestDatabase;
    let db: SqlClient;
    beforeAll(async () => {
      database = await backend.open();
      db = database.db;
    });
    afterAll(async () => {
      await database.close();
    });

    it('migrates once and reports nothing to do the second time', async () => {
      const again = await migrate(db);
      expect(again.applied).toEqual([]);
      expect(again.current).toBe(Math.max(...loadMigrations().map((m) => m.version)));
      const tables = await db.query<{ table_name: string }>(
        `SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema()
            AND table_name NOT IN (SELECT relname FROM pg_class WHERE relispartition) ORDER BY table_name`,
      );
      expect(tables.map((t) => t.table_name)).toEqual([
        'alert_rules',
        'alert_ticks',
        'alerts',
        'api_keys',
        'audit_log',
        'compat_feedback_ids',
        'dataset_item_changes',
        'dataset_versions',
        'datasets',
        'document_effectiveness',
        'document_uses',
        'evaluator_backfills',
        'evaluator_calls',
        'evaluators',
        'experiment_response_facts',
        'experiment_variant_totals',
        'experiments',
        'feedback_current_votes',
        'feedback_event_ids',
        'feedback_events',
        'feedback_fingerprints',
        'feedback_issue_counts',
        'feedback_issue_counts_weekly',
        'feedback_metrics_daily',
        'feedback_metrics_hourly',
        'feedback_signals',
        'feedback_stats_cells',
        'feedback_user_stats_daily',
        'feedloop_migrations',
        'langsmith_feedback',
        'langsmith_runs',
        'live_counters',
        'pipeline_effects',
        'pipeline_pending',
        'privacy_keys',
        'registered_targets',
        'response_list_tags',
        'response_scores',
        'responses',
        'review_items',
        'review_queues',
        'review_reservations',
        'reviews',
        'rollup_dirty',
        'score_configs',
        'score_dirty',
        'training_applied_events',
        'training_batches',
        'user_consent',
        'user_memory_snapshots',
        'webhook_deliveries',
        'webhooks',
        'workspaces',
      ]);
    });

    it('plans the feedback writer once, on a Postgres server and on PGlite (migration 0054)', async () => {
      const [fn] = await db.query<{ config: string[] | null }>(
        `SELECT proconfig AS config FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
          WHERE p.proname = 'feedloop_write_feedback' AND n.nspname = current_schema()`,
      );
      expect(fn).toBeDefined();
      expect(fn?.config ?? []).toEqual(['plan_cache_mode=force_generic_plan']);
    });

    it('applies concurrent migrations once (advisory lock)', async () => {
      const extra = [...loadMigrations(), { version: 9_999, name: 'probe', sql: 'CREATE TABLE probe_once (id int)' }];
      const reports = await Promise.all([migrate(db, extra), migrate(db, extra)]);
      expect(reports.flatMap((r) => r.applied.map((a) => a.version))).toEqual([9_999]);
      await db.exec('DROP TABLE probe_once; DELETE FROM feedloop_migrations WHERE version = 9999');
    });

    it('runs a transaction\'s begin statement inside it, and rolls back on failure', async () => {
      const inside = await db.transaction(async (tx) => tx.query<{ statement_timeout: string }>('SHOW statement_timeout'), {
        begin: "SET LOCAL statement_timeout = '1234ms'",
      });
      expect(inside[0]?.statement_timeout).toBe('1234ms');
      const after = await db.query<{ statement_timeout: string }>('SHOW statement_timeout');
      expect(after[0]?.statement_timeout).not.toBe('1234ms');
      await db.exec('CREATE TABLE rollback_probe (id int)');
      await expect(
        db.transaction(async (tx) => {
          await tx.query('INSERT INTO rollback_probe VALUES (1)');
          throw new Error('boom');
        }),
      ).rejects.toThrow('boom');
      expect(await db.query('SELECT * FROM rollback_probe')).toEqual([]);
      await db.exec('DROP TABLE rollback_probe');
    });

    it('creates workspaces idempotently by tenant and name, with settings', async () => {
      const a = await createWorkspace(db, { name: 'support', settings: { dedupWindowSeconds: 30 } });
      const b = await createWorkspace(db, { name: 'support' });
      const c = await createWorkspace(db, { name: 'support', tenantId: 'acme' });
      expect(a.created).toBe(true);
      expect(b).toMatchObject({ created: false, workspace: { id: a.workspace.id } });
      expect(c.workspace.id).not.toBe(a.workspace.id);
      expect(a.workspace.settings).toMatchObject({ feedbackWindowHours: 24, dedupWindowSeconds: 30, publicRateLimitPerMinute: 10 });
      expect((await findWorkspace(db, a.workspace.id))?.name).toBe('support');
      expect((await findWorkspace(db, 'support', 'acme'))?.id).toBe(c.workspace.id);
      const updated = await updateWorkspaceSettings(db, a.workspace.id, { feedbackWindowHours: 72 });
      expect(updated.settings).toMatchObject({ feedbackWindowHours: 72, dedupWindowSeconds: 30, publicRateLimitPerMinute: 10 });
      expect((await listWorkspaces(db)).map((w) => w.id)).toEqual(expect.arrayContaining([a.workspace.id, c.workspace.id]));
    });

    it('stores only key hashes, authenticates, lists and revokes', async () => {
      const { workspace } = await createWorkspace(db, { name: 'keys' });
      const secret = await createApiKey(db, workspace.id, 'secret', { name: 'backend' });
      const pub = await createApiKey(db, workspace.id, 'public');
      expect(secret.key).toMatch(/^fl_sk_[A-Za-z0-9_-]{43}$/);
      expect(pub.key).toMatch(/^fl_pk_/);
      const stored = await db.query<{ key_hash: string }>('SELECT key_hash FROM api_keys WHERE workspace_id = $1', [workspace.id]);
      expect(stored.map((r) => r.key_hash)).not.toContain(secret.key);
      expect(await authenticateKey(db, secret.key)).toEqual({ keyId: secret.info.id, workspaceId: workspace.id, kind: 'secret' });
      expect(await authenticateKey(db, `${secret.key}x`)).toBeUndefined();
      expect((await listApiKeys(db, workspace.id)).map((k) => k.kind).sort()).toEqual(['public', 'secret']);
      await revokeApiKey(db, workspace.id, secret.info.id);
      expect(await authenticateKey(db, secret.key)).toBeUndefined();
      await expect(revokeApiKey(db, 'another', pub.info.id)).rejects.toMatchObject({ code: 'FEEDLOOP_ERR_KEY_NOT_FOUND' });
      // A given key (headless set-up) is idempotent, and cannot be claimed by another workspace.
      const given = 'fl_sk_given_key_for_headless_setup';
      expect((await createApiKey(db, workspace.id, 'secret', { key: given })).created).toBe(true);
      expect((await createApiKey(db, workspace.id, 'secret', { key: given })).created).toBe(false);
      const other = await createWorkspace(db, { name: 'keys-other' });
      await expect(createApiKey(db, other.workspace.id, 'secret', { key: given })).rejects.toMatchObject({ field: 'key' });
    });

    it('registers responses idempotently and refuses the same id with other content', async () => {
      const { workspace } = await createWorkspace(db, { name: 'responses' });
      const r = { id: 'resp-1', query: 'q', answer: 'a', contextDocumentIds: ['d1', 'd2'], sources: ['https://x.test/1'] };
      const first = await writeResponseBatch(db, [
        { workspaceId: workspace.id, response: r },
        { workspaceId: workspace.id, response: r },
      ]);
      expect(first.map((o) => o.status)).toEqual(['created', 'duplicate']);
      const again = await writeResponseBatch(db, [
        { workspaceId: workspace.id, response: r },
        { workspaceId: workspace.id, response: { ...r, answer: 'b' } },
      ]);
      expect(again.map((o) => o.status)).toEqual(['duplicate', 'rejected']);
      const sameBatch = await writeResponseBatch(db, [
        { workspaceId: workspace.id, response: { ...r, id: 'resp-2' } },
        { workspaceId: workspace.id, response: { ...r, id: 'resp-2', query: 'other' } },
      ]);
      expect(sameBatch.map((o) => o.status)).toEqual(['created', 'rejected']);
      const rows = await db.query<{ context_document_ids: string[]; sources: string[] }>(
        "SELECT context_document_ids, sources FROM responses WHERE workspace_id = $1 AND id = 'resp-1'",
        [workspace.id],
      );
      expect(rows).toEqual([{ context_document_ids: ['d1', 'd2'], sources: ['https://x.test/1'] }]);
    });
  });
}
