// The approval form of an asking call: Approve, Deny (with an optional reason the log keeps), or
// Edit the arguments in a JSON editor that is checked against the tool's input schema before
// anything is sent (Esc or Cancel leaves the editor, not the reply); "always allow" grants a rule
// (the tool's suggested rules, or this tool with any input) along with the approval.
import { useContext, useState } from 'preact/hooks'
import { z } from 'zod'
import type { PermissionRule, ToolCallBlock } from '../../lib/core/messages.js'
import { html } from '../html.js'
import { issuesInWords } from '../schemaWords.js'
import { prettyArgs } from '../present.js'
import { Session } from './context.js'

const rulesFor = (call: ToolCallBlock): PermissionRule[] =>
  call.suggested_rules?.length ? call.suggested_rules : [{ tool_name: call.name, rule_content: null, behavior: 'allow', source: 'user' }]

/** Why `text` is not acceptable input for the tool, or null when it is. */
export const checkArguments = (text: string, schema: Record<string, unknown> | undefined): string | null => {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch (error) {
    return `Not valid JSON: ${(error as Error).message}`
  }
  if (!schema) return null
  let check: z.ZodType
  try {
    check = z.fromJSONSchema(schema as Parameters<typeof z.fromJSONSchema>[0])
  } catch {
    return null // a schema zod cannot read: the agent checks the input when the call runs
  }
  const parsed = check.safeParse(value)
  if (parsed.success) return null
  return issuesInWords(parsed.error.issues)
}

/** `grants: false` for a sub-agent's call: answered through the root, which grants no rules in the sub-agent. */
export const Approval = ({ call, grants = true }: { call: ToolCallBlock; grants?: boolean }) => {
  const { live, tools } = useContext(Session)
  const [editing, setEditing] = useState(false)
  const [text, setText] = useState(() => prettyArgs(call.input))
  const [problem, setProblem] = useState<string | null>(null)
  const [always, setAlways] = useState(false)
  const [reason, setReason] = useState('')
  if (!live) return null
  const cancelEdit = () => {
    setEditing(false)
    setText(prettyArgs(call.input))
    setProblem(null)
  }
  const onEditorKey = (e: KeyboardEvent) => {
    if (e.key !== 'Escape') return
    e.preventDefault()
    e.stopPropagation() // Esc elsewhere stops the reply; here it only leaves the editor
    cancelEdit()
  }
  const rules = rulesFor(call)
  const approve = () => {
    if (editing) {
      const why = checkArguments(text, tools.find((t) => t.name === call.name)?.input_schema)
      setProblem(why)
      if (why) return
    }
    live.approve(call, { input: editing ? JSON.stringify(JSON.parse(text)) : undefined, rules: always ? rules : undefined })
  }
  const editorId = `edit-${call.id}`
  return html`
    <div class="approval" role="group" aria-label=${`Approve ${call.name}?`}>
      ${editing ? html`
        <label for=${editorId}>Arguments (JSON)</label>
        <textarea id=${editorId} class="json" rows="6" spellcheck="false" value=${text}
          aria-invalid=${problem ? 'true' : 'false'} aria-describedby=${problem ? `${editorId}-problem` : undefined}
          onInput=${(e: Event) => setText((e.target as HTMLTextAreaElement).value)} onKeyDown=${onEditorKey}></textarea>
        ${problem ? html`<p id=${`${editorId}-problem`} class="problem" role="alert">${problem}</p>` : null}` : null}
      ${grants ? html`<label class="check">
        <input type="checkbox" checked=${always} onChange=${(e: Event) => setAlways((e.target as HTMLInputElement).checked)} />
        Always allow ${rules.map((r) => (r.rule_content === null ? `${r.tool_name}` : `${r.tool_name} (${r.rule_content})`)).join(', ')}
      </label>` : null}
      <label class="reason">Reason if you deny (optional; the log keeps it)
        <input type="text" value=${reason} onInput=${(e: Event) => setReason((e.target as HTMLInputElement).value)} />
      </label>
      <div class="actions">
        <button type="button" class="primary" onClick=${approve}>${editing ? 'Approve edited' : 'Approve'}</button>
        <button type="button" onClick=${() => live.deny(call, reason.trim() || undefined)}>Deny</button>
        ${editing ? html`<button type="button" onClick=${cancelEdit}>Cancel</button>` : html`<button type="button" onClick=${() => setEditing(true)}>Edit</button>`}
      </div>
    </div>`
}
