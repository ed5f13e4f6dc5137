// How a tree of agents' logs link (issue 21), read without OpenTelemetry: the child's first
// REPLY_START names its parent call (metadata.parent), the parent's TOOL_RESULT_START names the
// child session (metadata.child_session_id). The CLI finds a session's descendants with these.
import type { AgentEvent } from '../core/events.js'

/** The parent call a sub-agent's REPLY_START records, or null. */
export const parentOf = (event: AgentEvent): { session_id: string; reply_id?: string; tool_call_id: string } | null => {
  const parent = event.metadata.parent as { session_id?: unknown; tool_call_id?: unknown } | undefined
  return typeof parent?.session_id === 'string' && typeof parent.tool_call_id === 'string' ? (parent as { session_id: string; tool_call_id: string }) : null
}

/** The child session a sub-agent's tool result names (issue 21: the parent's TOOL_RESULT_START records it). */
export const childSessionOf = (event: AgentEvent, own: string): string | null => {
  const { child_session_id, session_id } = event.metadata as { child_session_id?: unknown; session_id?: unknown }
  if (typeof child_session_id === 'string') return child_session_id
  return typeof session_id === 'string' && session_id !== own ? session_id : null
}
