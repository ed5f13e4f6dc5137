// The result form of an external call (a tool the agent does not run): the person writes the
// output, says whether it succeeded, and submits it; the reply then goes on. An empty result is
// refused in place: the box gets the focus and says what it needs. A question the model asks
// (askUser) gets the Question form instead.
import { useContext, useRef, useState } from 'preact/hooks'
import type { ToolCallBlock } from '../../lib/core/messages.js'
import { html } from '../html.js'
import { Session } from './context.js'
import { Question } from './Question.js'
import { questionOf } from '../../lib/agent/askUser.js'

export const ExternalResult = ({ call }: { call: ToolCallBlock }) => {
  const { live } = useContext(Session)
  const [output, setOutput] = useState('')
  const [failed, setFailed] = useState(false)
  const [problem, setProblem] = useState<string | null>(null)
  const box = useRef<HTMLTextAreaElement>(null)
  if (!live) return null
  // The model asks the person a question (askUser): its own form.
  const question = questionOf(call)
  if (question) return html`<${Question} call=${call} question=${question} />`
  const id = `result-${call.id}`
  const submit = (e: Event) => {
    e.preventDefault()
    if (!output.trim()) {
      setProblem(`Write the result of ${call.name} first.`)
      box.current?.focus()
      return
    }
    live.submit(call, output, failed ? 'error' : 'success')
  }
  const onInput = (e: Event) => {
    setOutput((e.target as HTMLTextAreaElement).value)
    setProblem(null)
  }
  return html`
    <form class="external" aria-label=${`Result of ${call.name}`} onSubmit=${submit} novalidate>
      <label for=${id}>Result of ${call.name}</label>
      <textarea id=${id} ref=${box} rows="3" value=${output} onInput=${onInput}
        aria-invalid=${problem ? 'true' : 'false'} aria-describedby=${problem ? `${id}-problem` : undefined}></textarea>
      ${problem ? html`<p id=${`${id}-problem`} class="problem" role="alert">${problem}</p>` : null}
      <label class="check">
        <input type="checkbox" checked=${failed} onChange=${(e: Event) => setFailed((e.target as HTMLInputElement).checked)} />
        The call failed (send as an error)
      </label>
      <div class="actions"><button type="submit" class="primary">Submit result</button></div>
    </form>`
}
