// Where the person writes: Enter sends (Shift+Enter for a new line), Send is offered while the
// agent is idle, Stop while a reply runs or waits (Esc does the same anywhere on the page).
import { useState } from 'preact/hooks'
import type { ReplyStatus } from '../../reducers/state.js'
import { html } from '../html.js'

export interface ComposerProps {
  status: ReplyStatus
  onSend: (text: string) => void
  onStop: () => void
  /** Said instead of the status's usual line (the reply waits on sub-agents that work). */
  note?: string
}

const STATUS_TEXT: Record<ReplyStatus, string> = {
  idle: 'Ready.',
  running: 'The agent is replying. Esc or Stop interrupts it.',
  paused: 'The reply waits for you: answer the card above, or Stop.',
}

export const Composer = ({ status, onSend, onStop, note }: ComposerProps) => {
  const [text, setText] = useState('')
  const send = () => {
    if (!text.trim() || status !== 'idle') return
    onSend(text)
    setText('')
  }
  const onKeyDown = (e: KeyboardEvent) => {
    if (e.key === 'Enter' && !e.shiftKey && !e.isComposing) {
      e.preventDefault()
      send()
    }
  }
  return html`
    <form class="composer" onSubmit=${(e: Event) => { e.preventDefault(); send() }}>
      <label for="composer-input" class="sr-only">Message</label>
      <textarea id="composer-input" rows="2" placeholder="Write a message (Enter sends, Shift+Enter for a new line)"
        value=${text} onInput=${(e: Event) => setText((e.target as HTMLTextAreaElement).value)} onKeyDown=${onKeyDown}></textarea>
      <div class="composer-actions">
        <button type="submit" class="primary" disabled=${status !== 'idle' || !text.trim()}>Send</button>
        <button type="button" class="stop" disabled=${status === 'idle'} onClick=${onStop} aria-keyshortcuts="Escape">Stop</button>
      </div>
      <p class="status-line muted small" role="status" aria-live="polite">${note ?? STATUS_TEXT[status]}</p>
    </form>`
}
