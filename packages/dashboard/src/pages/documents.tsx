/**
 * Documents: the effectiveness ranking of the documents responses drew on
 * (`GET /v1/documents?sort=`, built by the memory/documents API; "not available" until it exists).
 */
import { useState } from 'preact/hooks';
import { api } from '../api.js';
import { Show, num, useLoad } from '../ui.js';

interface Doc { documentId?: string; id?: string; positive?: number; negative?: number; effectiveness?: number | null; score?: number | null; [k: string]: unknown }

/** The Documents page. */
export function Documents() {
  const [sort, setSort] = useState('effectiveness');
  const [docs] = useLoad(() => api<{ documents?: Doc[]; data?: Doc[] }>('GET', `/v1/documents?sort=${sort}`), [sort]);
  return (
    <>
      <div class="toolbar">
        <label for="sort">Sort by</label>
        <select id="sort" value={sort} onChange={(e) => setSort(e.currentTarget.value)}>
          <option value="effectiveness">most effective</option>
          <option value="-effectiveness">least effective</option>
        </select>
      </div>
      <Show value={docs} height={300}>
        {(d) => {
          const list = d.documents ?? d.data ?? [];
          return list.length === 0 ? <p class="note">No documents yet: register responses with contextDocumentIds.</p> : (
            <div class="table-wrap">
              <table>
                <thead><tr><th scope="col">Document</th><th scope="col" class="n">Positive</th><th scope="col" class="n">Negative</th><th scope="col" class="n">Effectiveness</th></tr></thead>
                <tbody>
                  {list.map((x) => {
                    const id = String(x.documentId ?? x.id ?? '');
                    const eff = x.effectiveness ?? x.score ?? null;
                    return <tr key={id}><td>{id}</td><td class="n">{num(x.positive ?? null)}</td><td class="n">{num(x.negative ?? null)}</td><td class="n">{typeof eff === 'number' ? eff.toFixed(2) : '–'}</td></tr>;
                  })}
                </tbody>
              </table>
            </div>
          );
        }}
      </Show>
    </>
  );
}
