// The timeline panel: the session's events as rows (deltas coalesced), each with its seq and time.
// Picking a row shows the conversation as it was after it. Only the latest rows are drawn until
// the person asks for earlier ones, so a long session opens fast.
import { memo } from 'preact/compat'
import { useState } from 'preact/hooks'
import { html } from '../html.js'
import { useStickToEnd } from './stick.js'
import type { TimelineRow } from '../timeline.js'

const PAGE = 200

const time = (iso: string) => {
  const d = new Date(iso)
  return Number.isNaN(d.getTime()) ? iso : d.toLocaleTimeString(undefined, { hour12: false })
}

const Row = memo(({ row, picked, onPick }: { row: TimelineRow; picked: boolean; onPick: (row: TimelineRow) => void }) => html`
  <li>
    <button type="button" class=${picked ? 'row picked' : 'row'} aria-current=${picked ? 'true' : undefined} onClick=${() => onPick(row)}
      data-seq=${row.last_seq}>
      <span class="seq">#${row.seq === row.last_seq ? row.seq : `${row.seq}–${row.last_seq}`}</span>
      <span class="type">${row.type}${row.count > 1 ? ` ×${row.count}` : ''}</span>
      <time class="muted small" datetime=${row.time}>${time(row.time)}</time>
      ${row.detail ? html`<span class="detail muted small">${row.detail}</span>` : null}
    </button>
  </li>`)

export interface TimelinePanelProps {
  rows: readonly TimelineRow[]
  /** Bumped when rows change (the array is appended to in place). */
  version: number
  picked: number | null
  onPick: (row: TimelineRow) => void
}

export const TimelinePanel = memo(({ rows, version, picked, onPick }: TimelinePanelProps) => {
  const [shown, setShown] = useState(PAGE)
  const ref = useStickToEnd<HTMLElement>(version)
  const from = Math.max(0, rows.length - shown)
  const visible = rows.slice(from)
  return html`
    <aside class="timeline" aria-label="Timeline" ref=${ref}>
      <h2>Timeline <span class="muted small">${rows.length} rows</span></h2>
      ${from > 0 ? html`<button type="button" class="more" onClick=${() => setShown(shown + PAGE * 5)}>Show earlier events (${from})</button>` : null}
      <ol>
        ${visible.map((row) => html`<${Row} key=${row.seq} row=${row} picked=${picked === row.last_seq} onPick=${onPick} />`)}
      </ol>
    </aside>`
})
