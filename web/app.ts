// The page: the sessions list, the open session's conversation with its composer, and the timeline.
// The open session is in the address (#/sessions/ID), so a reload reopens it and resumes the
// stream. Showing the past (a timeline row, or a state picked in Redux DevTools) is read-only.
import { useCallback, useEffect, useMemo, useReducer, useState } from 'preact/hooks'
import type { SessionInfo } from '../lib/hub/types.js'
import { replay } from '../reducers/root.js'
import type { AgentState } from '../reducers/state.js'
import { Api, ApiError, type ToolInfo } from './api.js'
import { Composer } from './components/Composer.js'
import { Session } from './components/context.js'
import { Conversation } from './components/Conversation.js'
import { SessionList } from './components/SessionList.js'
import { TimelinePanel } from './components/TimelinePanel.js'
import { TokenForm } from './components/TokenForm.js'
import { html } from './html.js'
import { LiveSession } from './live.js'
import type { TimelineRow } from './timeline.js'

const ROUTE = /^#\/sessions\/(.+)$/
const sessionInAddress = () => {
  const m = ROUTE.exec(location.hash)
  return m ? decodeURIComponent(m[1]) : null
}
const goTo = (id: string | null) => {
  location.hash = id ? `#/sessions/${encodeURIComponent(id)}` : ''
}

/** Sessions the list asks for at first, and how many more each "More sessions" adds (one page). */
const PAGE = 100

/** A conversation shown read-only (a sub-agent's, inside its card). */
const readOnly = (state: AgentState) => html`<${Conversation} state=${state} live=${false} />`

interface Past { seq: number | null; label: string; state: AgentState }

/** An answer to a paused reply is being written (an argument editor open, a result form in use): Esc must not discard it. */
const answering = (): boolean =>
  document.querySelector('.approval textarea') !== null || document.activeElement?.closest('.approval, form.external') != null

export const App = ({ api }: { api: Api }) => {
  const [sessions, setSessions] = useState<SessionInfo[]>([])
  const [current, setCurrent] = useState(sessionInAddress)
  const [live, setLive] = useState<LiveSession | null>(null)
  const [tools, setTools] = useState<ToolInfo[]>([])
  const [past, setPast] = useState<Past | null>(null)
  const [error, setError] = useState<string | null>(null)
  const [listError, setListError] = useState<string | null>(null)
  const [version, bump] = useReducer((n: number) => n + 1, 0)
  const redraw = useCallback(() => bump(undefined), [])
  const [showTimeline, setShowTimeline] = useState(false)
  /** At phone width the sessions list is behind a button (the conversation comes first), and shown while no session is open. */
  const [showSessions, setShowSessions] = useState(false)

  /** The sub-agent session whose log the timeline shows instead of the open session's, and its follower. */
  const [logOf, setLogOf] = useState<string | null>(null)
  const [childLog, setChildLog] = useState<LiveSession | null>(null)

  const [wanted, setWanted] = useState(PAGE)
  const [more, setMore] = useState(false)
  const [tokenRefused, setTokenRefused] = useState(false)

  const refresh = useCallback(() => {
    api.firstSessions(wanted).then(({ items, more }) => {
      setSessions(items)
      setMore(more)
      setListError(null)
      setTokenRefused(false)
    }, (e: Error) => {
      setListError(e.message)
      setTokenRefused(e instanceof ApiError && e.status === 401)
    })
  }, [api, wanted])
  const attempt = (work: Promise<unknown>) => work.catch((e: Error) => setError(e.message))

  useEffect(() => {
    refresh()
    const onHash = () => setCurrent(sessionInAddress())
    window.addEventListener('hashchange', onHash)
    const timer = setInterval(refresh, 3000)
    return () => { window.removeEventListener('hashchange', onHash); clearInterval(timer) }
  }, [refresh])

  useEffect(() => {
    setPast(null)
    setTools([])
    if (!current) return setLive(null)
    const session = new LiveSession({
      base: api.base, token: api.token, session_id: current, onChange: redraw,
      onDevToolsJump: (state) => setPast({ seq: null, label: 'a state picked in Redux DevTools', state }),
      tree: { waiting: () => api.waiting(current), answer: (body) => api.input(current, body) },
    })
    setLive(session)
    api.tools(current).then(setTools, () => setTools([]))
    return () => session.close()
  }, [current, api])

  useEffect(() => setLogOf(null), [current])
  useEffect(() => {
    if (!live || !logOf) return setChildLog(null)
    const child = live.child(logOf, redraw)
    setChildLog(child)
    return () => child.close()
  }, [live, logOf])

  const state = live?.state
  const status = state?.status ?? 'idle'
  useEffect(refresh, [status])

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.key === 'Escape' && live && live.state.status !== 'idle' && !(live.state.status === 'paused' && answering())) {
        e.preventDefault()
        live.stop()
      }
    }
    document.addEventListener('keydown', onKey)
    return () => document.removeEventListener('keydown', onKey)
  }, [live])

  // A row picked on a phone: the page scrolls, so bring the "Viewing the past" banner into view.
  useEffect(() => {
    if (past) document.querySelector('.chat > .banner.past')?.scrollIntoView({ block: 'nearest' })
  }, [past])

  const pick = useCallback((row: TimelineRow) => {
    if (!live) return
    // A sub-agent's event shows the sub-agent's conversation then (forking is the open session's).
    if (childLog) return setPast({ seq: null, label: `the sub-agent's event #${row.last_seq} (${row.type})`, state: replay(childLog.log.slice(0, row.last_seq)) })
    setPast({ seq: row.last_seq, label: `event #${row.last_seq} (${row.type})`, state: replay(live.log.slice(0, row.last_seq)) })
  }, [live, childLog])
  const showLog = useCallback((session_id: string) => {
    setLogOf(session_id)
    setShowTimeline(true)
  }, [])
  const waits = live?.descendantWaits
  const context = useMemo(() => ({ live: past ? null : live, tools, descendantWaits: past || !waits ? [] : waits, conversation: readOnly, showLog }), [live, tools, past, waits])

  const open = (id: string) => {
    setShowSessions(false)
    goTo(id)
  }
  const create = () => attempt(api.create().then(({ session_id }) => { refresh(); open(session_id) }))
  const remove = (id: string) => {
    if (!confirm(`Delete session ${id}? Its whole log is removed.`)) return
    attempt(api.remove(id).then(() => { if (id === current) goTo(null); refresh() }))
  }
  const fork = (seq: number) => current && attempt(api.fork(current, seq).then(({ session_id }) => { refresh(); goTo(session_id) }))

  return html`
    <div class=${['layout', showTimeline ? 'with-timeline' : '', showSessions || !current ? 'with-sessions' : ''].filter(Boolean).join(' ')}>
      <header class="top">
        <h1>agentlog</h1>
        <span class="actions">
          <button type="button" class="narrow-only" aria-expanded=${showSessions} aria-controls="sessions"
            onClick=${() => setShowSessions(!showSessions)}>${showSessions ? 'Hide sessions' : 'Sessions'}</button>
          ${live ? html`<button type="button" aria-expanded=${showTimeline} aria-controls="timeline"
            onClick=${() => setShowTimeline(!showTimeline)}>${showTimeline ? 'Hide timeline' : 'Timeline'}</button>` : null}
        </span>
      </header>
      <${SessionList} sessions=${sessions} problem=${listError} tokenRefused=${tokenRefused} current=${current} onOpen=${open} onNew=${create} onDelete=${remove}
        more=${more} onMore=${() => setWanted(sessions.length + PAGE)} />
      <main class="chat" aria-label="Conversation">
        ${tokenRefused ? html`<${TokenForm} />` : null}
        ${error ? html`<div class="banner error" role="alert">${error} <button type="button" onClick=${() => setError(null)}>Dismiss</button></div>` : null}
        ${live?.error ? html`<div class="banner error" role="alert">${live.error}</div>` : null}
        ${live && live.connection === 'dropped' ? html`<div class="banner warn" role="alert">Connection lost. Reconnecting…</div>` : null}
        ${past ? html`
          <div class="banner past" role="status">
            <strong>Viewing the past:</strong> the conversation after ${past.label}. It is read-only.
            <span class="actions">
              <button type="button" class="primary" onClick=${() => setPast(null)}>Back to live</button>
              ${past.seq !== null ? html`<button type="button" onClick=${() => fork(past.seq!)}>Fork from here</button>` : null}
            </span>
          </div>` : null}
        ${!current ? html`<p class="muted empty">Open a session or start a new one.</p>` : null}
        ${live && state ? html`
          <${Session.Provider} value=${context}>
            <${Conversation} state=${past ? past.state : state} live=${!past} />
          </${Session.Provider}>
          ${past ? null : html`<${Composer} status=${status} queue=${state.queue} onSend=${(t: string) => live.send(t)} onQueue=${(t: string) => live.queue(t)}
            onSteer=${(t: string) => live.steer(t)} onUnqueue=${(id: string) => live.unqueue(id)} onStop=${(when?: 'now' | 'step') => live.stop(when)}
            note=${live.subagentsWork ? 'A sub-agent is working. Esc or Stop stops it and this reply.' : undefined} />`}` : null}
      </main>
      ${live && showTimeline ? html`<div id="timeline" class="timeline-wrap">
        ${childLog ? html`<div class="banner past" role="status">
          The log of sub-agent session ${logOf}. <button type="button" onClick=${() => setLogOf(null)}>Back to this session's log</button>
          ${childLog.error ? html`<p class="small">It is not served here (its log is kept by the process that ran it).</p>` : null}
        </div>` : null}
        <${TimelinePanel} key=${logOf ?? current} rows=${(childLog ?? live).timeline.rows} version=${version} picked=${childLog ? null : past?.seq ?? null} onPick=${pick} />
      </div>` : null}
    </div>`
}
