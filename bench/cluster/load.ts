// The load generator: C clients keep replies streaming over HTTP across S sessions. A session has a
// home process (where its replies are posted, so it is owned there); a pause is approved through
// another process, and one reply in five is stopped through another process (the Stop latency).
// A stream cut by a kill is recovered on another process: a follower there waits for the cut
// reply's REPLY_END (the failover time, from the kill), while a new reply posted there takes the
// session over. Every event that reaches a client counts as delivered; every sync point (REPLY_END,
// a pause) a client received is acknowledged, so committed: `acked` keeps them for the final check.
import { readSse } from '../../lib/client/sse.js'
import type { AgentEvent } from '../../lib/index.js'
import type { Fleet } from './fleet.js'

export interface Acked { session: string; seq: number; id: string }

export interface LoadFigures {
  delivered: number[]
  stops: number[]
  failovers: number[]
  acked: Acked[]
  cut: number
  /** Cut replies whose client had seen events past the end of the log (never committed): followed from the log's end. */
  behindLog: number
  replies: number
  errors: string[]
}

const SYNC = new Set(['REPLY_END', 'REQUIRE_USER_CONFIRM', 'REQUIRE_EXTERNAL_EXECUTION'])
/** A stream that sends nothing for this long is taken as cut (its owner died while it was relayed). */
const SILENCE_MS = 8000

const post = (url: string, body: unknown, signal?: AbortSignal) =>
  fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body), signal })

export const runLoad = async (fleet: Fleet, options: { clients: number; sessions: string[]; seconds: number }): Promise<LoadFigures> => {
  const figures: LoadFigures = { delivered: fleet.members.map(() => 0), stops: [], failovers: [], acked: [], cut: 0, behindLog: 0, replies: 0, errors: [] }
  const home = new Map(options.sessions.map((s, i) => [s, i % fleet.members.length]))
  const until = Date.now() + options.seconds * 1000
  let salt = 0

  /** Reads a reply's (or a follow's) events from `response`; resolves with how it ended. */
  const read = async (response: Response, at: number, session: string, controller: AbortController, onEvent?: (e: AgentEvent) => void) => {
    let last: AgentEvent | undefined
    let silence = setTimeout(() => controller.abort(), SILENCE_MS)
    try {
      for await (const m of readSse(response)) {
        clearTimeout(silence)
        silence = setTimeout(() => controller.abort(), SILENCE_MS)
        const event = m.data as AgentEvent
        if (!event?.type) continue
        last = event
        figures.delivered[at]++
        if (SYNC.has(event.type)) figures.acked.push({ session, seq: Number(m.id), id: event.id })
        onEvent?.(event)
        if (event.type === 'REPLY_END') break
      }
    } catch {
      // cut: the process died, or the stream went silent
    } finally {
      clearTimeout(silence)
    }
    return last
  }

  const reply = async (session: string, input: string, stop: boolean): Promise<{ ended: boolean; reply_id?: string; lastSeq: number; at: number }> => {
    const at = home.get(session)!
    const url = fleet.members[at].url
    if (!url) return { ended: false, lastSeq: -1, at }
    const controller = new AbortController()
    let lastSeq = -1
    let reply_id: string | undefined
    let deltas = 0
    let stopping: Promise<void> | null = null
    let paused: AgentEvent | undefined
    let response: Response
    try {
      response = await post(`${url}/sessions/${session}/replies`, { input }, controller.signal)
    } catch {
      return { ended: false, lastSeq, at }
    }
    if (response.status === 409) {
      await response.body?.cancel()
      return { ended: true, lastSeq, at } // still running elsewhere: try another turn later
    }
    if (!response.ok) {
      figures.errors.push(`reply ${response.status}: ${(await response.text()).slice(0, 200)}`)
      return { ended: true, lastSeq, at }
    }
    figures.replies++
    const last = await read(response, at, session, controller, (e) => {
      lastSeq = e.metadata.seq as number
      if (e.type === 'REPLY_START') reply_id = e.reply_id
      if (e.type === 'REQUIRE_USER_CONFIRM') paused = e
      if (e.type === 'TEXT_BLOCK_DELTA' && stop && ++deltas === 6 && !stopping) {
        const other = fleet.members[fleet.other(at, salt++)].url
        const started = performance.now()
        stopping = other ? post(`${other}/sessions/${session}/interrupt`, {}).then(async (r) => {
          await r.body?.cancel()
          if (r.ok) figures.stops.push(performance.now() - started)
        }, () => undefined) : null
      }
    })
    await stopping
    if (last?.type === 'REPLY_END') return { ended: true, reply_id, lastSeq, at }
    if (last?.type === 'REQUIRE_USER_CONFIRM' && paused?.type === 'REQUIRE_USER_CONFIRM') {
      // Approved through another process; the rest is followed on the home process.
      const other = fleet.members[fleet.other(at, salt++)].url
      if (!other) return { ended: false, reply_id, lastSeq, at }
      try {
        const approved = await post(`${other}/sessions/${session}/input`, { approve: paused.tool_calls[0].id })
        await approved.body?.cancel()
        if (!approved.ok) return { ended: false, reply_id, lastSeq, at }
        const follow = new AbortController()
        const events = await fetch(`${url}/sessions/${session}/events?from_seq=${lastSeq}`, { signal: follow.signal })
        const end = await read(events, at, session, follow, (e) => (lastSeq = e.metadata.seq as number))
        follow.abort()
        return { ended: end?.type === 'REPLY_END', reply_id, lastSeq, at }
      } catch {
        return { ended: false, reply_id, lastSeq, at }
      }
    }
    return { ended: false, reply_id, lastSeq, at }
  }

  /** A cut reply: follow the session on another process until its REPLY_END, while a new reply there takes it over. */
  const recover = async (session: string, cut: { reply_id?: string; lastSeq: number; at: number }) => {
    figures.cut++
    const killedAt = fleet.members[cut.at].killedAt || Date.now()
    const g = fleet.other(cut.at, salt++)
    const url = fleet.members[g].url
    if (!url) return
    home.set(session, g)
    const follow = new AbortController()
    const closed = (async () => {
      try {
        let events = await fetch(`${url}/sessions/${session}/events?from_seq=${Math.max(0, cut.lastSeq)}`, { signal: follow.signal })
        if (events.status === 400) {
          // The client saw events the dead owner streamed but never committed (a reply streams its
          // deltas before their commit; only sync points wait for it): the log ends before them, so
          // follow from where it ends. (Before issue 29 this refusal left the cut reply uncounted.)
          await events.body?.cancel()
          figures.behindLog++
          const state = (await (await fetch(`${url}/sessions/${session}`, { signal: follow.signal })).json()) as { seq?: number }
          events = await fetch(`${url}/sessions/${session}/events?from_seq=${Math.min(Math.max(0, cut.lastSeq), state.seq ?? 0)}`, { signal: follow.signal })
        }
        for await (const m of readSse(events)) {
          const e = m.data as AgentEvent
          // The cut reply closed; or it never reached the log (it died before its first commit)
          // and the next owner's reply starts: either way the session moved.
          const closed = e?.type === 'REPLY_END' && (!cut.reply_id || e.reply_id === cut.reply_id)
          if (closed || (e?.type === 'REPLY_START' && e.reply_id !== cut.reply_id)) {
            figures.failovers.push(Date.now() - killedAt)
            return
          }
        }
      } catch {
        // this process died too: the next turn recovers again
      }
    })()
    await reply(session, 'work', false)
    // The new reply ran (or failed): the follower has seen the move by now, or this process died.
    const timer = setTimeout(() => follow.abort(), 2000)
    await closed
    clearTimeout(timer)
    follow.abort()
  }

  const client = async (mine: string[]) => {
    for (let turn = 0; Date.now() < until; turn++) {
      const session = mine[turn % mine.length]
      const r = Math.random()
      const outcome = await reply(session, r < 0.15 ? 'ask' : 'work', r >= 0.15 && r < 0.35)
      if (!outcome.ended && Date.now() < until) await recover(session, outcome)
      await new Promise((resolve) => setTimeout(resolve, 10 + Math.random() * 30))
    }
  }

  const perClient = Array.from({ length: options.clients }, (_, c) => options.sessions.filter((_, i) => i % options.clients === c))
  await Promise.all(perClient.map(client))
  return figures
}
