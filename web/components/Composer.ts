// Where the person writes: Enter sends (Shift+Enter for a new line) while the agent is idle, queues
// while a reply runs (the queued messages are chips above, each removable, or taken back to edit),
// "Send now" steers the running reply instead, and over a paused reply Enter interrupts it and sends.
// Stop stops now (Esc does the same anywhere on the page); "Stop after this step" stops gently.
import { useState } from 'preact/hooks'
import type { QueueEntry, ReplyStatus } from '../../reducers/state.js'
import { textOf } from '../../lib/agent/text.js'
import { html } from '../html.js'

export interface ComposerProps {
  status: ReplyStatus
  /** The messages waiting for the next replies (agent.state.queue). */
  queue?: readonly QueueEntry[]
  onSend: (text: string) => void
  onQueue?: (text: string) => void
  onSteer?: (text: string) => void
  onUnqueue?: (id: string) => void
  onStop: (when?: 'now' | 'step') => void
  /** Said instead of the status's usual line (the reply waits on sub-agents that work). */
  note?: string
}

const STATUS_TEXT: Record<ReplyStatus, string> = {
  idle: 'Ready.',
  running: 'The agent is replying. Enter queues your message for the next reply; Send now gives it to this one. Esc or Stop interrupts it.',
  paused: 'The reply waits for you: answer the card above, or Stop. Sending a new message interrupts the waiting reply.',
}

export const Composer = ({ status, queue = [], onSend, onQueue, onSteer, onUnqueue, onStop, note }: ComposerProps) => {
  const [text, setText] = useState('')
  const running = status === 'running'
  const send = () => {
    if (!text.trim()) return
    if (running) onQueue?.(text)
    else onSend(text)
    setText('')
  }
  const steer = () => {
    if (!text.trim() || !running) return
    onSteer?.(text)
    setText('')
  }
  const onKeyDown = (e: KeyboardEvent) => {
    if (e.key === 'Enter' && !e.shiftKey && !e.isComposing) {
      e.preventDefault()
      send()
    }
  }
  // Editing a queued message takes it back into the composer.
  const edit = (entry: QueueEntry) => {
    onUnqueue?.(entry.id)
    setText(textOf(entry.msg))
  }
  return html`
    <form class="composer" onSubmit=${(e: Event) => { e.preventDefault(); send() }}>
      ${queue.length ? html`<ul class="queue-chips" aria-label="Up next">
        ${queue.map((entry) => html`<li class="chip" key=${entry.id}>
          <button type="button" class="chip-text" title="Edit" onClick=${() => edit(entry)}>${textOf(entry.msg)}</button>
          <button type="button" class="chip-remove" aria-label=${`Take back: ${textOf(entry.msg)}`} onClick=${() => onUnqueue?.(entry.id)}>×</button>
        </li>`)}
      </ul>` : null}
      <label for="composer-input" class="sr-only">Message</label>
      <textarea id="composer-input" rows="2" placeholder=${running ? 'Write a message (Enter queues it for the next reply)' : 'Write a message (Enter sends, Shift+Enter for a new line)'}
        value=${text} onInput=${(e: Event) => setText((e.target as HTMLTextAreaElement).value)} onKeyDown=${onKeyDown}></textarea>
      <div class="composer-actions">
        <button type="submit" class="primary" disabled=${!text.trim()}>${running ? 'Queue' : 'Send'}</button>
        ${running ? html`<button type="button" class="steer" disabled=${!text.trim()} onClick=${steer}>Send now</button>` : null}
        <button type="button" class="stop" disabled=${status === 'idle'} onClick=${() => onStop('now')} aria-keyshortcuts="Escape">Stop</button>
        ${running ? html`<button type="button" class="stop-step" onClick=${() => onStop('step')}>Stop after this step</button>` : null}
      </div>
      <p class="status-line muted small" role="status" aria-live="polite">${note ?? STATUS_TEXT[status]}</p>
    </form>`
}
