// Slice: `permission_rules`, the rules a user granted along with confirmations
// (`{tool_name, rule_content, behavior, source}`); they apply to later calls of the session.
// A cold path, so it uses immer for readability.
import { produce } from 'immer'
import type { AgentEvent } from '../lib/core/events.js'
import type { AgentState } from './state.js'

export const rules = (state: AgentState, event: AgentEvent): AgentState => {
  if (event.type !== 'USER_CONFIRM_RESULT' || event.reply_id !== state.reply_id || state.status !== 'paused') return state
  const granted = event.confirm_results.flatMap((r) => r.rules ?? [])
  if (granted.length === 0) return state
  return produce(state, (draft) => {
    for (const rule of granted) {
      const same = draft.permission_rules.findIndex((r) => r.tool_name === rule.tool_name && r.rule_content === rule.rule_content)
      if (same >= 0) draft.permission_rules[same] = rule
      else draft.permission_rules.push(rule)
    }
  })
}
