// The conversation of a state: the context's messages, then the reply in progress. While text
// streams only the reply in progress changes: the context keeps its identity, so its list is
// skipped as a whole, and each message is memoised on its own object too.
import { memo } from 'preact/compat'
import type { Msg } from '../../lib/core/messages.js'
import type { AgentState } from '../../reducers/state.js'
import { html } from '../html.js'
import { Message } from './Message.js'
import { useStickToEnd } from './stick.js'

const Context = memo(({ context }: { context: Msg[] }) =>
  html`${context.map((msg) => html`<${Message} key=${msg.id} msg=${msg} waiting="" streaming=${false} />`)}`)

export const Conversation = ({ state, live }: { state: AgentState; live: boolean }) => {
  const waiting = live ? state.waiting_for.map((c) => c.id).join(' ') : ''
  const empty = state.context.length === 0 && !state.reply_msg
  const ref = useStickToEnd<HTMLDivElement>(state, { resizes: true })
  return html`
    <div class="conversation" ref=${ref}>
      ${empty ? html`<p class="muted empty">Nothing said yet. Write a message below.</p>` : null}
      <${Context} context=${state.context} />
      ${state.reply_msg ? html`<${Message} key=${state.reply_msg.id} msg=${state.reply_msg} waiting=${waiting} streaming=${state.status === 'running'} />` : null}
    </div>`
}
