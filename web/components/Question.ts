// The model's question (the askUser tool, issue 30): its choices as buttons (one click answers), or
// checkboxes with several allowed, and a text field where free text is allowed; the answer is sent
// as { choice } | { choices } | { text }, which the agent checks against the question.
import { useContext, useState } from 'preact/hooks'
import type { AskUserAnswer, AskUserInput } from '../../lib/agent/askUser.js'
import type { ToolCallBlock } from '../../lib/core/messages.js'
import { html } from '../html.js'
import { Session } from './context.js'

export const Question = ({ call, question }: { call: ToolCallBlock; question: AskUserInput }) => {
  const { live } = useContext(Session)
  const [text, setText] = useState('')
  const [picked, setPicked] = useState<string[]>([])
  if (!live) return null
  const { choices = [], multiple = false, allowText = false } = question
  const answer = (given: AskUserAnswer) => live.answer(call, given)
  const toggle = (choice: string) => setPicked(picked.includes(choice) ? picked.filter((c) => c !== choice) : [...picked, choice])
  const id = `answer-${call.id}`
  return html`
    <form class="external question" aria-label=${`Question: ${question.question}`} onSubmit=${(e: Event) => { e.preventDefault(); if (text.trim()) answer({ text }) }}>
      <p class="question-text">${question.question}</p>
      ${choices.length && !multiple ? html`<div class="actions choices">${choices.map((c) => html`<button type="button" key=${c} onClick=${() => answer({ choice: c })}>${c}</button>`)}</div>` : null}
      ${choices.length && multiple ? html`<fieldset class="choices"><legend class="sr-only">Choose one or more</legend>
        ${choices.map((c) => html`<label class="check" key=${c}><input type="checkbox" checked=${picked.includes(c)} onChange=${() => toggle(c)} /> ${c}</label>`)}
        <div class="actions"><button type="button" class="primary" disabled=${!picked.length} onClick=${() => answer({ choices: picked })}>Send choices</button></div>
      </fieldset>` : null}
      ${!choices.length || allowText ? html`<label for=${id}>${choices.length ? 'Or answer in your own words' : 'Your answer'}</label>
        <textarea id=${id} rows="2" value=${text} onInput=${(e: Event) => setText((e.target as HTMLTextAreaElement).value)}></textarea>
        <div class="actions"><button type="submit" class="primary" disabled=${!text.trim()}>Send answer</button></div>` : null}
    </form>`
}
