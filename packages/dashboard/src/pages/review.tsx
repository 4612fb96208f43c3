/**
 * Review (issue 27): the queues this key may review, each with its progress, and the reviewing
 * screen of one at `#/review/<queueId>` (review-screen.tsx). A secret key sees every queue of the
 * workspace, with links to each one's settings and agreement (`#/queues/<id>`) and a new queue; a
 * reviewer key sees the queues it is a member of.
 */
import { api, sessionRole } from '../api.js';
import { routeHash, useRoute } from '../route.js';
import type { Queue } from '../review-types.js';
import { Card, Show, num, useLoad } from '../ui.js';
import { ReviewScreen } from './review-screen.js';

/** A progress bar with its figures in words (not colour alone). */
export function ProgressBar({ done, inProgress, total }: { done: number; inProgress: number; total: number }) {
  const share = (n: number): string => `${total === 0 ? 0 : (100 * n) / total}%`;
  return (
    <div class="progress" role="img" aria-label={`${done} of ${total} done, ${inProgress} in progress`}>
      <span class="bar done" style={{ width: share(done) }} />
      <span class="bar doing" style={{ width: share(inProgress) }} />
    </div>
  );
}

function QueueList() {
  const [queues] = useLoad(() => api<{ queues: Queue[] }>('GET', '/v1/review-queues'), []);
  const admin = sessionRole() === 'secret';
  return (
    <>
      {admin ? <p class="toolbar"><a class="button" href={routeHash('queues', 'new')}>New queue</a></p> : null}
      <Show value={queues} height={200}>
        {(q) => q.queues.length === 0 ? (
          <p class="note">{admin ? 'No review queues yet: make one, then add responses to it from the Responses page or with rules.' : 'You are not a member of any review queue yet.'}</p>
        ) : (
          <div class="table-wrap">
            <table class="stack queues">
              <thead><tr><th scope="col">Queue</th><th scope="col">Kind</th><th scope="col">Progress</th><th scope="col" class="n">Done</th><th scope="col" class="n">In progress</th><th scope="col" class="n">Pending</th>{q.queues.some((x) => x.reviewed !== undefined) ? <th scope="col" class="n">Yours</th> : null}<th scope="col"><span class="sr-only">Actions</span></th></tr></thead>
              <tbody>
                {q.queues.map((x) => {
                  const p = x.progress;
                  return (
                    <tr key={x.id} data-queue={x.id}>
                      <td data-label="Queue"><a class="open" href={routeHash('review', x.id)}>{x.name}</a></td>
                      <td data-label="Kind">{x.kind}{x.reviewersPerItem > 1 ? ` · ${x.reviewersPerItem} reviewers an item` : ''}</td>
                      <td data-label="Progress">{p ? <ProgressBar done={p.done} inProgress={p.inProgress} total={p.total} /> : '–'}</td>
                      <td data-label="Done" class="n">{p ? `${num(p.done)} of ${num(p.total)}` : '–'}</td>
                      <td data-label="In progress" class="n">{p ? num(p.inProgress) : '–'}</td>
                      <td data-label="Pending" class="n">{p ? num(p.pending) : '–'}</td>
                      {x.reviewed !== undefined ? <td data-label="Yours" class="n">{num(x.reviewed)}</td> : null}
                      <td data-label="">
                        <span class="actions">
                          <a href={routeHash('review', x.id)}>Review</a>
                          {admin ? <a href={routeHash('queues', x.id)}>Settings and agreement</a> : null}
                        </span>
                      </td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </div>
        )}
      </Show>
    </>
  );
}

interface KeyRow { id: string; kind: string; name: string | null; revokedAt: string | null }

/** A secret key reviews for one of the queue's members: it picks whom (`#/review/<id>?as=<name>`). */
function ReviewAs({ queueId }: { queueId: string }) {
  const [both] = useLoad(() => Promise.all([api<Queue>('GET', `/v1/review-queues/${encodeURIComponent(queueId)}`), api<{ keys: KeyRow[] }>('GET', '/v1/keys')]), [queueId]);
  return (
    <Card title="Review as" wide>
      <Show value={both}>
        {([q, k]) => {
          const members = k.keys.filter((x) => q.members.includes(x.id) && !x.revokedAt && x.name);
          return members.length === 0 ? <p class="note">{q.name} has no members yet: add reviewer keys to it in its <a href={routeHash('queues', q.id)}>settings</a>.</p> : (
            <>
              <p>A secret key reviews {q.name} for one of its members (reviewers normally log in with their own reviewer key):</p>
              <ul>{members.map((m) => <li key={m.id}><a href={routeHash('review', q.id, { as: m.name ?? '' })}>{m.name}</a></li>)}</ul>
            </>
          );
        }}
      </Show>
    </Card>
  );
}

/** The Review page: the queue list, or one queue's reviewing screen at `#/review/<id>`. */
export function Review() {
  const route = useRoute();
  const as = route.params.get('as');
  if (route.id !== null && sessionRole() === 'secret' && !as) return <ReviewAs queueId={route.id} />;
  if (route.id !== null) return <ReviewScreen key={`${route.id}/${as ?? ''}`} queueId={route.id} as={sessionRole() === 'secret' ? as : null} />;
  return <Card title="Queues" wide><QueueList /></Card>;
}
