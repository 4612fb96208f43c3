/**
 * `feedloop import jsonl` as a user runs it (the built CLI, a real process) against a listening
 * server, on both stores. The lines are made here from the Shepherd critiques (CC BY-NC 4.0:
 * tests only) into a temporary file, never into the repository.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKENDS, startTestApp, type TestApp } from './harness.js';
import { CLI_PATH } from './process-helpers.js';
import { DATASETS_DIR, datasetsAvailable } from './datasets.js';

const hasData = datasetsAvailable();
const dir = mkdtempSync(join(tmpdir(), 'feedloop-import-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Shepherd {
  id: number;
  dataset: string;
  question: string;
  answer: string;
  feedback: string;
}

for (const backend of BACKENDS) {
  describe.skipIf(!backend.available || !hasData)(`feedloop import jsonl (${backend.name})`, () => {
    let t: TestApp;
    let url: string;
    beforeAll(async () => {
      t = await startTestApp(await backend.open());
      await t.app.listen({ port: 0, host: '127.0.0.1' });
      const address = t.app.server.address();
      url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
    });
    afterAll(() => t?.close());

    // Asynchronous: the server answers from this process's event loop.
    const importJsonl = (file: string, key = t.secretKey) =>
      new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => {
        execFile(process.execPath, [CLI_PATH, 'import', 'jsonl', file, '--url', url, '--key', key, '--json'], { timeout: 120_000, env: { ...process.env, LOG_LEVEL: 'warn' } }, (err, stdout, stderr) =>
          resolve({ status: err ? ((err as { code?: number }).code ?? null) : 0, stdout, stderr }),
        );
      });

    it('stores one response and its feedback per line; ids are kept or derived, so a re-run stores nothing', async () => {
      const rows = readFileSync(join(DATASETS_DIR, 'shepherd-human-feedback/human_data_for_model.jsonl'), 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as Shepherd);
      const file = join(dir, `shepherd-${backend.name}.jsonl`);
      // Half the lines carry an id, half let the importer derive one.
      const lines = rows.map((r, i) => ({
        ...(i % 2 === 0 ? { id: `shepherd:${r.id}` } : {}),
        query: r.question,
        answer: r.answer,
        agent: r.dataset,
        feedback: [{ type: 'comment', userId: 'shepherd:annotator', payload: { comment: r.feedback } }, { type: 'thumbs_down', userId: 'shepherd:annotator' }],
      }));
      writeFileSync(file, lines.map((l) => JSON.stringify(l)).join('\n'));

      const first = await importJsonl(file);
      expect(first.stderr).toBe('');
      expect(first.status).toBe(0);
      expect(JSON.parse(first.stdout)).toMatchObject({ responses: { created: rows.length, duplicate: 0, rejected: 0 }, events: { accepted: 2 * rows.length, duplicate: 0, rejected: 0 } });
      const stored = await t.db.query<{ type: string; n: number }>(
        `SELECT type, count(*)::int AS n FROM feedback_events WHERE workspace_id = $1 GROUP BY type ORDER BY type`,
        [t.workspaceId],
      );
      expect(stored).toEqual([
        { type: 'comment', n: rows.length },
        { type: 'thumbs_down', n: rows.length },
      ]);
      const comment = await t.db.query<{ comment: string }>(
        `SELECT e.payload->>'comment' AS comment FROM feedback_events e WHERE e.workspace_id = $1 AND e.response_id = $2 AND e.type = 'comment'`,
        [t.workspaceId, `shepherd:${rows[0]?.id}`],
      );
      expect(comment).toEqual([{ comment: rows[0]?.feedback }]);

      const again = await importJsonl(file);
      expect(JSON.parse(again.stdout)).toMatchObject({ responses: { created: 0, duplicate: rows.length }, events: { accepted: 0, duplicate: 2 * rows.length } });
    }, 240_000);

    it('fails clearly without a valid key or on a bad line, naming the line', async () => {
      const file = join(dir, `bad-${backend.name}.jsonl`);
      writeFileSync(file, `${JSON.stringify({ query: 'q', answer: 'a' })}\n{"query": 1}\n`);
      const bad = await importJsonl(file);
      expect(bad.status).toBe(1);
      expect(bad.stderr).toMatch(/bad-\w+\.jsonl:2: needs "query" and "answer" strings/);
      const good = join(dir, `good-${backend.name}.jsonl`);
      writeFileSync(good, JSON.stringify({ query: 'q', answer: 'a' }));
      const noKey = await importJsonl(good, 'fl_sk_wrong');
      expect(noKey.status).toBe(1);
      expect(noKey.stderr).toMatch(/401 FEEDLOOP_ERR_AUTH/);
    });
  });
}
