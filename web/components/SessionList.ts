// The sessions list, newest first as GET /sessions pages them: each session's title (its first
// message), id and status, when it started and its last activity, what a fork was forked from, a
// button to open it and one to delete it, and a "New session" button. The open session is marked
// with aria-current. It shows the sessions loaded so far; "More sessions" asks for the next page
// when the server has one. A sub-agent's session is listed under its root, indented, and says
// whose sub-agent it is.
import type { SessionInfo } from '../../lib/hub/types.js'
import { html } from '../html.js'
import { ago } from '../present.js'
import { nestSessions } from '../../lib/hub/nested.js'

export interface SessionListProps {
  sessions: SessionInfo[]
  /** Why the list could not be refreshed (it shows the last one it had); null when it could. */
  problem: string | null
  /** The server refused the page's token (the token form says what to do). */
  tokenRefused: boolean
  current: string | null
  onOpen: (id: string) => void
  onNew: () => void
  onDelete: (id: string) => void
  /** The server has sessions after those shown. */
  more: boolean
  onMore: () => void
}

const started = (iso: string) => new Date(iso).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' })

const forkedFrom = (s: SessionInfo): string | null =>
  typeof s.metadata.forked_from === 'string' ? `forked from ${s.metadata.forked_from} at event #${String(s.metadata.from_seq)}` : null

export const SessionList = ({ sessions, problem, tokenRefused, current, onOpen, onNew, onDelete, more, onMore }: SessionListProps) => html`
  <nav id="sessions" class="sessions" aria-label="Sessions">
    <div class="sessions-head">
      <h2>Sessions</h2>
      <button type="button" class="primary" onClick=${onNew}>New session</button>
    </div>
    ${tokenRefused ? html`<p class="problem small" role="status">The server needs an access token to list the sessions: enter it in the form beside.</p>`
      : problem ? html`<p class="problem small" role="status">Could not refresh the list: ${problem}</p>` : null}
    ${sessions.length === 0 && !problem ? html`<p class="muted">No sessions yet.</p>` : null}
    <ul>
      ${nestSessions(sessions).map(({ info: s, depth, parent }) => html`
        <li key=${s.session_id} class=${[s.session_id === current ? 'current' : '', depth ? 'sub-agent' : ''].filter(Boolean).join(' ')} data-depth=${Math.min(depth, 4)}>
          <button type="button" class="open" aria-current=${s.session_id === current ? 'page' : undefined}
            onClick=${() => onOpen(s.session_id)}>
            <span class="sid">${s.session_id}</span>
            <span class="title">${s.title ?? 'New conversation'}</span>
            <span class=${`status status-${s.status}`}>${s.status}</span>
            <span class="muted small when">started ${started(s.created_at)} · active ${ago(s.updated_at)}</span>
            ${forkedFrom(s) ? html`<span class="muted small fork">${forkedFrom(s)}</span>` : null}
            ${parent ? html`<span class="muted small parent">sub-agent of ${parent.session_id}</span>` : null}
          </button>
          <button type="button" class="icon" aria-label=${`Delete session ${s.session_id}`} title="Delete"
            onClick=${() => onDelete(s.session_id)}>✕</button>
        </li>`)}
    </ul>
    ${more ? html`<button type="button" class="more" onClick=${onMore}>More sessions</button>` : null}
  </nav>`
