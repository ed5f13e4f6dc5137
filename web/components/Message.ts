// One message of the conversation, block by block: text as it streams, thinking collapsed, images
// and other data, and each tool call as a card holding its result. Memoised on the message object:
// structural sharing means a delta redraws only the reply it belongs to, and inside it only the
// changed block or card.
import { memo } from 'preact/compat'
import type { Block, Msg, ToolResultBlock } from '../../lib/core/messages.js'
import { html } from '../html.js'
import { replyEndLabel, resultText, usageText } from '../present.js'
import { DataView } from './DataView.js'
import { ToolCard } from './ToolCard.js'

/** Ids of the calls waiting for the person, space-separated (a string, so memo compares it cheaply). */
export type Waiting = string

const BlockView = memo(({ block, result, waiting }: { block: Block; result?: ToolResultBlock; waiting: boolean }) => {
  switch (block.type) {
    case 'text':
      return html`<div class="text">${block.text}</div>`
    case 'thinking':
      return html`<details class="thinking"><summary>Thinking</summary><div class="text">${block.thinking}</div></details>`
    case 'data':
      return html`<${DataView} block=${block} />`
    case 'hint': {
      // A hint is written for the model (a structured-output or runtime reminder): people see what is left without the reminders.
      const text = resultText(block.hint)
      return text ? html`<p class="hint muted">${text}</p>` : null
    }
    case 'tool_call':
      return html`<${ToolCard} call=${block} result=${result} waiting=${waiting} />`
    case 'tool_result':
      return null
  }
})

export interface MessageProps {
  msg: Msg
  /** The calls of this message waiting for the person (live view only). */
  waiting: Waiting
  streaming: boolean
}

export const Message = memo(({ msg, waiting, streaming }: MessageProps) => {
  const results = new Map<string, ToolResultBlock>()
  for (const b of msg.content) if (b.type === 'tool_result') results.set(b.id, b)
  const end = replyEndLabel(msg)
  const usage = usageText(msg.usage)
  return html`
    <article class=${`msg msg-${msg.role}`} aria-label=${msg.role === 'user' ? 'You' : `Reply from ${msg.name}`} data-msg-id=${msg.id}>
      <header class="msg-head">
        <strong>${msg.role === 'user' ? 'You' : msg.name}</strong>
        ${streaming ? html`<span class="badge live">replying…</span>` : null}
        ${end ? html`<span class="badge stopped">${end}</span>` : null}
      </header>
      ${msg.content.map((b) => html`<${BlockView} key=${b.id + b.type} block=${b} result=${b.type === 'tool_call' ? results.get(b.id) : undefined} waiting=${b.type === 'tool_call' && waiting.split(' ').includes(b.id)} />`)}
      ${usage ? html`<footer class="usage muted small">${usage}</footer>` : null}
    </article>`
})
