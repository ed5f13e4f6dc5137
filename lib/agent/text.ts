// Text for people: a message's text (`textOf`), tool output without the model-facing
// `<system-reminder>` notes, and what `reply()` resolves to: the reply's message (plain AgentScope
// JSON) with two conveniences that are not part of it (non-enumerable, so JSON, schemas and
// deep-equality never see them): `text`, and `waiting_for`, the calls a paused reply waits for.
import type { Msg, ToolCallBlock, ToolResultBlock } from '../core/messages.js'

/**
 * The text of a message: its text blocks joined (thinking, tool calls and results left out). Texts
 * of different model calls of one reply (a tool call, a result or a hint between them) are separated
 * by a blank line.
 */
export const textOf = (msg: Msg): string => {
  let text = ''
  let between = false
  for (const block of msg.content) {
    if (block.type === 'text') {
      text += between && text !== '' && block.text !== '' ? `\n\n${block.text}` : block.text
      between = false
    } else if (block.type === 'tool_call' || block.type === 'tool_result' || block.type === 'hint') between = true
  }
  return text
}

/**
 * The text of a tool result's output: a string as it is, a list of blocks (what a tool the agent ran
 * or an external result gives) as its text blocks joined; data blocks are left out.
 */
export const outputText = (output: ToolResultBlock['output']): string => {
  if (typeof output === 'string') return output
  let text = ''
  for (const block of output) if (block.type === 'text') text += block.text
  return text
}

const REMINDER = /<system-reminder>[\s\S]*?<\/system-reminder>/g

/**
 * Tool output as people should see it: the `<system-reminder>` notes written for the model (the
 * interruption and denial texts) removed. The result's state (`interrupted`, `denied`) says the same
 * thing to people; show it instead.
 */
export const withoutReminders = (text: string): string => text.replace(REMINDER, '')

export interface Reply extends Msg {
  /** The message's text (see textOf). */
  readonly text: string
  /**
   * The calls a paused reply waits for: approve / deny the `asking` ones, submitResult the `submitted`
   * ones. Each names the session it waits in: a sub-agent's calls stand in for the sub-agent call.
   */
  readonly waiting_for: readonly WaitingCall[]
}

/** A call a reply waits for, and the session whose reply it belongs to. */
export type WaitingCall = ToolCallBlock & { readonly session_id: string }

export const asReply = (msg: Msg, waiting_for: readonly WaitingCall[]): Reply =>
  Object.defineProperties({ ...msg }, {
    text: { get: () => textOf(msg) },
    waiting_for: { value: waiting_for },
  }) as Reply
