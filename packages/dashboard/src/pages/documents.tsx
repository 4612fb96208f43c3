/**
 * Documents: the effectiveness ranking of the documents responses drew on (`GET /v1/documents`,
 * ADR-016): per document or per source, uses, votes, flags and the smoothed score with its 95 %
 * interval. A server without the route says so.
 */
import { useState } from 'preact/hooks';
import { api } from '../api.js';
import { Show, num, useLoad } from '../ui.js';

interface Doc {
  documentId?: string;
  source?: string;
  uses: number;
  positive: number;
  negative: number;
  flaggedIrrelevant: number;
  flaggedMissing: number;
  effectiveness: number;
  interval: [number, number];
}

/** The Documents page. */
export function Documents() {
  const [order, setOrder] = useState<'desc' | 'asc'>('desc');
  const [by, setBy] = useState<'document' | 'source'>('document');
  const [docs] = useLoad(() => api<{ data: Doc[]; total: number }>('GET', `/v1/documents?sort=effectiveness&order=${order}&by=${by}`), [order, by]);
  return (
    <>
      <div class="toolbar">
        <label for="sort">Sort by</label>
        <select id="sort" value={order} onChange={(e) => setOrder(e.currentTarget.value as 'desc' | 'asc')}>
          <option value="desc">most effective</option>
          <option value="asc">least effective</option>
        </select>
        <label for="by">Per</label>
        <select id="by" value={by} onChange={(e) => setBy(e.currentTarget.value as 'document' | 'source')}>
          <option value="document">document</option>
          <option value="source">source</option>
        </select>
      </div>
      <Show value={docs} height={300}>
        {(d) =>
          d.data.length === 0 ? (
            <p class="note">No documents yet: register responses with contextDocumentIds.</p>
          ) : (
            <div class="table-wrap">
              <table class="stack">
                <thead>
                  <tr>
                    <th scope="col">{by === 'source' ? 'Source' : 'Document'}</th>
                    <th scope="col" class="n">Uses</th>
                    <th scope="col" class="n">Positive</th>
                    <th scope="col" class="n">Negative</th>
                    <th scope="col" class="n">Flagged irrelevant</th>
                    <th scope="col" class="n">Flagged missing</th>
                    <th scope="col" class="n">Effectiveness (95 % interval)</th>
                  </tr>
                </thead>
                <tbody>
                  {d.data.map((x) => {
                    const id = x.documentId ?? x.source ?? '';
                    return (
                      <tr key={id}>
                        <td data-label={by === 'source' ? 'Source' : 'Document'}>{id}</td>
                        <td data-label="Uses" class="n">{num(x.uses)}</td>
                        <td data-label="Positive" class="n">{num(x.positive)}</td>
                        <td data-label="Negative" class="n">{num(x.negative)}</td>
                        <td data-label="Flagged irrelevant" class="n">{num(x.flaggedIrrelevant)}</td>
                        <td data-label="Flagged missing" class="n">{num(x.flaggedMissing)}</td>
                        <td data-label="Effectiveness (95 %)" class="n">
                          {x.effectiveness.toFixed(2)} ({x.interval[0].toFixed(2)}–{x.interval[1].toFixed(2)})
                        </td>
                      </tr>
                    );
                  })}
                </tbody>
              </table>
            </div>
          )
        }
      </Show>
    </>
  );
}
