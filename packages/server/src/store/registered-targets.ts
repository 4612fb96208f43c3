/**
 * Targets registered with their content (migration 0026; `PUT /v1/targets/:id`, MCP
 * `register_target`), and a claim's confidence recomputed from its registered edges and their
 * corrections (core's claimConfidence).
 */
import { claimConfidence, claimEdge, targetState, type ClaimConfidence, type TargetKind, type TargetRegistration } from '@feedloop/core';
import type { SqlExecutor } from '../db/sql-client.js';
import { readTargetEvents } from './targets.js';

/** A registered target as the API shows it. */
export interface RegisteredTarget {
  targetId: string;
  kind: TargetKind;
  text: string | null;
  fragmentId: string | null;
  claimId: string | null;
  relation: string | null;
  confidence: number | null;
  createdAt: string;
  updatedAt: string;
}

/** Edges of one claim read at most for its confidence. */
export const CLAIM_EDGES_LIMIT = 1_000;

interface Row {
  target_id: string;
  kind: TargetKind;
  text: string | null;
  fragment_id: string | null;
  claim_id: string | null;
  relation: string | null;
  confidence: number | null;
  created_at: Date;
  updated_at: Date;
  inserted?: boolean;
}

const COLUMNS = 'target_id, kind, text, fragment_id, claim_id, relation, confidence, created_at, updated_at';

function toTarget(r: Row): RegisteredTarget {
  return {
    targetId: r.target_id,
    kind: r.kind,
    text: r.text,
    fragmentId: r.fragment_id,
    claimId: r.claim_id,
    relation: r.relation,
    confidence: r.confidence,
    createdAt: r.created_at.toISOString(),
    updatedAt: r.updated_at.toISOString(),
  };
}

/**
 * Registers a target, or replaces its registration; `created` tells which.
 *
 * @example
 * await putTarget(db, ws, 'edge_1', { kind: 'edge', fragmentId: 'frag_1', claimId: 'claim_1', relation: 'NEUTRAL' })
 */
export async function putTarget(db: SqlExecutor, workspaceId: string, targetId: string, t: TargetRegistration): Promise<{ target: RegisteredTarget; created: boolean }> {
  const [row] = await db.query<Row>(
    `INSERT INTO registered_targets (workspace_id, target_id, kind, text, fragment_id, claim_id, relation, confidence)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
     ON CONFLICT (workspace_id, target_id) DO UPDATE SET kind = EXCLUDED.kind, text = EXCLUDED.text, fragment_id = EXCLUDED.fragment_id,
       claim_id = EXCLUDED.claim_id, relation = EXCLUDED.relation, confidence = EXCLUDED.confidence, updated_at = now()
     RETURNING ${COLUMNS}, (xmax = 0) AS inserted`,
    [workspaceId, targetId, t.kind, t.text ?? null, t.fragmentId ?? null, t.claimId ?? null, t.relation ?? null, t.confidence ?? null],
  );
  if (!row) throw new Error('the target upsert returned no row');
  return { target: toTarget(row), created: row.inserted === true };
}

/**
 * One registered target, or undefined.
 *
 * @example
 * await readRegisteredTarget(db, ws, 'claim_1') // { kind: 'claim', text: 'Sales grew in May.', … }
 */
export async function readRegisteredTarget(db: SqlExecutor, workspaceId: string, targetId: string): Promise<RegisteredTarget | undefined> {
  const [row] = await db.query<Row>(`SELECT ${COLUMNS} FROM registered_targets WHERE workspace_id = $1 AND target_id = $2`, [workspaceId, targetId]);
  return row ? toTarget(row) : undefined;
}

/**
 * A claim's confidence from its registered edges, each taken as corrected when its label
 * actions decided a label (docs/targets.md, "Claim confidence").
 *
 * @example
 * (await recomputeClaimConfidence(db, ws, 'claim_1')).value // 0.7
 */
export async function recomputeClaimConfidence(db: SqlExecutor, workspaceId: string, claimId: string): Promise<ClaimConfidence> {
  const edges = await db.query<Row>(
    `SELECT ${COLUMNS} FROM registered_targets WHERE workspace_id = $1 AND claim_id = $2 AND kind = 'edge' ORDER BY target_id LIMIT $3`,
    [workspaceId, claimId, CLAIM_EDGES_LIMIT],
  );
  const evidence = [];
  for (const e of edges) {
    const label = targetState(e.target_id, await readTargetEvents(db, workspaceId, e.target_id)).label;
    evidence.push(claimEdge(e.target_id, { relation: e.relation, confidence: e.confidence }, label));
  }
  return claimConfidence(evidence);
}

/**
 * The claims of the registered edges among `targetIds`, edge → claim (for `target.corrected`).
 *
 * @example
 * await claimsOfEdges(db, ws, ['edge_1', 'frag_9']) // Map { 'edge_1' => 'claim_1' }
 */
export async function claimsOfEdges(db: SqlExecutor, workspaceId: string, targetIds: readonly string[]): Promise<Map<string, string>> {
  if (targetIds.length === 0) return new Map();
  const rows = await db.query<{ target_id: string; claim_id: string }>(
    `SELECT target_id, claim_id FROM registered_targets WHERE workspace_id = $1 AND target_id = ANY($2::text[]) AND kind = 'edge'`,
    [workspaceId, [...targetIds]],
  );
  return new Map(rows.map((r) => [r.target_id, r.claim_id]));
}
