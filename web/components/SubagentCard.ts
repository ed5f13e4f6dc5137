// A sub-agent's call (issue 21) as a card: the agent tool's name and task, the sub-agent's report as
// it streams into the call's result, its status, and the calls the sub-agent (or one of its own)
// waits for, answered from here (through the open session, which reaches the call where it waits).
// It expands into the sub-agent's conversation, followed live as a session of its own when the
// server serves it; otherwise the report above is what the parent's log has.
import { useContext, useEffect, useReducer, useState } from 'preact/hooks'
import type { ToolCallBlock, ToolResultBlock } from '../../lib/core/messages.js'
import type { WaitingCall } from '../../lib/agent/text.js'
import { html } from '../html.js'
import { LiveSession } from '../live.js'
import { RESULT_LABEL, prettyArgs, resultText } from '../present.js'
import { Approval } from './Approval.js'
import { Session } from './context.js'
import { ExternalResult } from './ExternalResult.js'

export interface SubagentCardProps {
  call: ToolCallBlock
  result?: ToolResultBlock
  waiting: boolean
  child_session_id: string
}

export const SubagentCard = ({ call, result, waiting, child_session_id }: SubagentCardProps) => {
  const { live, descendantWaits, showLog } = useContext(Session)
  const [open, setOpen] = useState(false)
  const text = result ? resultText(result.output) : ''
  const waits = waiting && live ? wherePlaced(live, call.id, descendantWaits) : []
  const ended = result && result.state !== 'running'
  const label = ended ? RESULT_LABEL[result.state] : waits.length ? 'Waits for you' : 'Sub-agent working…'
  /** Which sub-agent asks: this card's own, by its tool's name, or a deeper one, by its session. */
  const asker = (c: WaitingCall) => (c.session_id === child_session_id ? `${call.name} (session ${c.session_id})` : `in session ${c.session_id}, under ${call.name}`)
  return html`
    <section class=${`tool subagent tool-${ended ? result.state : call.state}`} aria-label=${`Sub-agent call ${call.name}`} data-call-id=${call.id} data-child-session=${child_session_id}>
      <header class="tool-head">
        <span class="tool-name">${call.name} <span class="muted small">(sub-agent)</span></span>
        <span class="badge" data-state=${ended ? result.state : call.state}>${label}</span>
      </header>
      <pre class="args" aria-label="Arguments">${prettyArgs(call.input) || ' '}</pre>
      <div class="result" aria-label="Sub-agent's report">
        ${text ? html`<pre class="output">${text}</pre>` : html`<p class="muted small">${ended ? 'No report.' : 'Nothing reported yet.'}</p>`}
      </div>
      ${waits.map((c) => html`
        <div key=${`${c.session_id}/${c.id}`} class="descendant-call" role="group" aria-label=${`${c.name}, asked by the sub-agent ${asker(c)}`}>
          <p class="small">The sub-agent <strong>${asker(c)}</strong> ${c.state === 'asking' ? 'asks to run' : 'waits for the result of'} <strong>${c.name}</strong>:</p>
          <pre class="args">${prettyArgs(c.input)}</pre>
          ${c.state === 'asking' ? html`<${Approval} call=${c} grants=${false} />` : html`<${ExternalResult} call=${c} />`}
        </div>`)}
      <details class="subagent-conversation" onToggle=${(e: Event) => setOpen((e.target as HTMLDetailsElement).open)}>
        <summary>The sub-agent's conversation</summary>
        ${open ? html`<${ChildConversation} session_id=${child_session_id} />` : null}
        ${showLog ? html`<button type="button" onClick=${() => showLog(child_session_id)}>Show its log in the timeline</button>` : null}
      </details>
    </section>`
}

/**
 * The calls shown on this card: those of its own sub-agent's session; those of deeper sessions (not
 * a call of this session) on the first sub-agent call the reply waits on.
 */
const wherePlaced = (live: LiveSession, call_id: string, waits: readonly WaitingCall[]): WaitingCall[] => {
  const children = new Set(live.children.values())
  const first = live.state.waiting_for.find((c) => live.children.has(c.id))?.id
  const mine = live.children.get(call_id)
  return waits.filter((c) => c.session_id === mine || (!children.has(c.session_id) && first === call_id))
}

/** The sub-agent's own session, followed live and read-only; the parent's log is all there is when the server does not serve it. */
const ChildConversation = ({ session_id }: { session_id: string }) => {
  const { live, conversation } = useContext(Session)
  const [child, setChild] = useState<LiveSession | null>(null)
  const [, redraw] = useReducer((n: number) => n + 1, 0)
  useEffect(() => {
    if (!live) return
    const session = live.child(session_id, () => redraw(undefined))
    setChild(session)
    return () => session.close()
  }, [live, session_id])
  if (!child) return null
  if (child.error) return html`<p class="muted small" role="note">This sub-agent's session is not served here (its log is kept by the process that ran it); its report above is what this session's log holds.</p>`
  return html`
    <div class="child-conversation" aria-label="The sub-agent's conversation">
      <${Session.Provider} value=${{ live: null, tools: [], descendantWaits: [] }}>
        ${conversation?.(child.state)}
      </${Session.Provider}>
    </div>`
}
