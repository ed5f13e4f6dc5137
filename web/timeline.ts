// The timeline's rows, built one event at a time: a run of deltas of one block, tool call or tool
// result is one row (its first and last seq and a count), every other event a row of its own.
// Adding an event touches only the last row, so the cost per event does not grow with the log.
import type { AgentEvent } from '../lib/core/events.js'

export interface TimelineRow {
  /** Seq of the row's first and last event; the fold "after this row" is the fold up to `last_seq`. */
  seq: number
  last_seq: number
  type: string
  /** How many events the row stands for (deltas coalesced). */
  count: number
  time: string
  /** A short description for people: the tool's name, the text so far, the reason an end gives. */
  detail: string
}

const DETAIL_MAX = 80

const deltaKey = (e: AgentEvent): string | null => {
  switch (e.type) {
    case 'TEXT_BLOCK_DELTA':
    case 'THINKING_BLOCK_DELTA':
    case 'DATA_BLOCK_DELTA':
      return `${e.type}:${e.block_id}`
    case 'TOOL_CALL_DELTA':
    case 'TOOL_RESULT_TEXT_DELTA':
      return `${e.type}:${e.tool_call_id}`
    default:
      return null
  }
}

const clip = (text: string) => (text.length > DETAIL_MAX ? `${text.slice(0, DETAIL_MAX - 1)}…` : text)

const detailOf = (e: AgentEvent): string => {
  switch (e.type) {
    case 'USER_MESSAGE':
      return clip(e.msg.content.map((b) => (b.type === 'text' ? b.text : `[${b.type}]`)).join(''))
    case 'TEXT_BLOCK_DELTA':
    case 'THINKING_BLOCK_DELTA':
    case 'TOOL_CALL_DELTA':
    case 'TOOL_RESULT_TEXT_DELTA':
      return clip(e.delta)
    case 'TOOL_CALL_START':
    case 'TOOL_RESULT_START':
      return e.tool_call_name
    case 'TOOL_RESULT_END':
      return e.state
    case 'MODEL_CALL_START':
      return e.model_name
    case 'MODEL_CALL_END':
    case 'REPLY_END':
      return e.finished_reason
    case 'REQUIRE_USER_CONFIRM':
    case 'REQUIRE_EXTERNAL_EXECUTION':
      return e.tool_calls.map((c) => c.name).join(', ')
    case 'CUSTOM':
      return e.name
    default:
      return ''
  }
}

export class Timeline {
  readonly rows: TimelineRow[] = []
  private lastKey: string | null = null

  add(event: AgentEvent, seq: number): void {
    const key = deltaKey(event)
    const last = this.rows[this.rows.length - 1]
    if (key !== null && key === this.lastKey && last) {
      const detail = last.detail.length >= DETAIL_MAX ? last.detail : clip(last.detail + detailOf(event))
      // A new object for the changed row, so a view that compares rows by identity redraws only it.
      this.rows[this.rows.length - 1] = { ...last, last_seq: seq, count: last.count + 1, detail }
    } else {
      this.rows.push({ seq, last_seq: seq, type: event.type, count: 1, time: event.created_at, detail: detailOf(event) })
    }
    this.lastKey = key
  }
}
