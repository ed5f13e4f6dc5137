// The AG-UI 1.0 shapes the adapter writes and reads, declared here so the runtime needs no AG-UI
// package (specs check them against @ag-ui/core's own schemas and @ag-ui/client's verifyEvents).
// Optional fields are omitted, never null.

/** One AG-UI event: `type` plus the fields of that type (RUN_STARTED{threadId, runId}, ...). */
export interface AgUiEvent {
  type: string
  [field: string]: unknown
}

export type AgUiContentPart =
  | { type: 'text'; text: string }
  | { type: 'image' | 'audio' | 'video' | 'document'; source: { type: 'data'; value: string; mimeType: string } | { type: 'url'; value: string; mimeType?: string } }

export interface AgUiInterrupt {
  id: string
  reason: 'tool_call' | 'input_required' | 'confirmation'
  toolCallId?: string
  message?: string
  responseSchema?: Record<string, unknown>
  metadata?: Record<string, unknown>
}

export interface AgUiToolCall {
  id: string
  type: 'function'
  function: { name: string; arguments: string }
}

export interface AgUiMessage {
  id: string
  role: 'developer' | 'system' | 'assistant' | 'user' | 'tool' | 'activity' | 'reasoning'
  content?: unknown
  toolCalls?: AgUiToolCall[]
  toolCallId?: string
  error?: string
  [field: string]: unknown
}

export interface AgUiResume {
  interruptId: string
  status: 'resolved' | 'cancelled'
  payload?: unknown
}

export interface AgUiTool {
  name: string
  description: string
  parameters?: unknown
}

export interface RunAgentInput {
  threadId: string
  runId: string
  messages: AgUiMessage[]
  tools?: AgUiTool[]
  resume?: AgUiResume[]
  [field: string]: unknown
}
