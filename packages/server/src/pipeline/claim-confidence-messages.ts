/**
 * ADR-0012's "recalculate the claim's confidence" after every correction: a `target.corrected`
 * message about a registered edge carries its claim's confidence, recomputed from the claim's
 * edges with this correction counted (issue 24; the rule is core's claimConfidence).
 */
import type { SqlExecutor } from '../db/sql-client.js';
import type { OutboundMessage } from '@feedloop/core';
import { claimsOfEdges, recomputeClaimConfidence } from '../store/registered-targets.js';

/**
 * Adds `data.claim = { claimId, confidence, edges, humanCorrectedEdges }` to each `target.corrected`
 * message whose target is a registered edge. Costs one indexed probe per workspace with such
 * messages, and nothing more when no target is registered.
 *
 * @example
 * await addClaimConfidence(tx, out.messages); // before the messages are stored for delivery
 */
export async function addClaimConfidence(tx: SqlExecutor, messages: OutboundMessage[]): Promise<void> {
  const corrected = messages.filter((m) => m.type === 'target.corrected');
  if (corrected.length === 0) return;
  const byWorkspace = new Map<string, OutboundMessage[]>();
  for (const m of corrected) byWorkspace.set(m.workspaceId, [...(byWorkspace.get(m.workspaceId) ?? []), m]);
  for (const [workspaceId, list] of byWorkspace) {
    const targetOf = (m: OutboundMessage): unknown => m.data.targetId;
    const claims = await claimsOfEdges(tx, workspaceId, [...new Set(list.map(targetOf).filter((t): t is string => typeof t === 'string'))]);
    const computed = new Map<string, Awaited<ReturnType<typeof recomputeClaimConfidence>>>();
    for (const m of list) {
      const claimId = claims.get(targetOf(m) as string);
      if (claimId === undefined) continue;
      let confidence = computed.get(claimId);
      if (!confidence) {
        confidence = await recomputeClaimConfidence(tx, workspaceId, claimId);
        computed.set(claimId, confidence);
      }
      m.data.claim = {
        claimId,
        confidence: confidence.value,
        edges: confidence.edges,
        humanCorrectedEdges: confidence.humanCorrectedEdges,
      };
    }
  }
}
