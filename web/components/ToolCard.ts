// A tool call as a card: its name and state, its arguments as they stream, its result for people
// (text, images; interrupted and denied said plainly), and, while the reply waits for the person,
// the approval form (asking calls) or the result form (external calls). A call that ran a sub-agent
// is a SubagentCard.
import { useContext } from 'preact/hooks'
import type { ToolCallBlock, ToolResultBlock } from '../../lib/core/messages.js'
import { html } from '../html.js'
import { RESULT_LABEL, prettyArgs, resultImages, resultText } from '../present.js'
import { Approval } from './Approval.js'
import { Session } from './context.js'
import { ExternalResult } from './ExternalResult.js'
import { DataView } from './DataView.js'
import { SubagentCard } from './SubagentCard.js'

const CALL_LABEL: Record<ToolCallBlock['state'], string> = {
  pending: 'Writing arguments…',
  asking: 'Needs your approval',
  allowed: 'Allowed',
  submitted: 'Waiting for you',
  finished: 'Finished',
}

/**
 * A call the agent never ran: its interrupted result is the text the agent wrote itself (a string),
 * where a tool that ran, even one cancelled while running, has a list of blocks.
 */
const neverRan = (result: ToolResultBlock): boolean => typeof result.output === 'string'

export const ToolCard = ({ call, result, waiting }: { call: ToolCallBlock; result?: ToolResultBlock; waiting: boolean }) => {
  const { live } = useContext(Session)
  const child = live?.children.get(call.id)
  if (child) return html`<${SubagentCard} call=${call} result=${result} waiting=${waiting} child_session_id=${child} />`
  // An external call waits for the person, whatever its open result says.
  const waitsForPerson = call.state === 'submitted' && (!result || result.state === 'running')
  const state = result && !waitsForPerson ? result.state : call.state
  const text = result ? resultText(result.output) : ''
  return html`
    <section class=${`tool tool-${state}`} aria-label=${`Tool call ${call.name}`} data-call-id=${call.id}>
      <header class="tool-head">
        <span class="tool-name">${call.name}</span>
        <span class="badge" data-state=${state}>${result && !waitsForPerson ? RESULT_LABEL[result.state] : CALL_LABEL[call.state]}</span>
      </header>
      <pre class="args" aria-label="Arguments">${prettyArgs(call.input) || ' '}</pre>
      ${result ? html`
        <div class="result" aria-label="Result">
          ${result.state === 'interrupted' ? html`<p class="plain">${neverRan(result) ? 'The reply was stopped before this tool ran.' : 'The tool was stopped before it finished.'}</p>` : null}
          ${result.state === 'denied' ? html`<p class="plain">You denied this call; the model was told.</p>` : null}
          ${text ? html`<pre class="output">${text}</pre>` : null}
          ${resultImages(result.output).map((b) => html`<${DataView} key=${b.id} block=${b} />`)}
        </div>` : null}
      ${waiting && live && call.state === 'asking' ? html`<${Approval} call=${call} />` : null}
      ${waiting && live && call.state === 'submitted' ? html`<${ExternalResult} call=${call} />` : null}
    </section>`
}
