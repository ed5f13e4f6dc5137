// The built-in askUser tool (issue 30): the model asks the user a question, with optional choices
// (one, or several with `multiple`) and optional free text; the reply parks like an external tool
// (REQUIRE_EXTERNAL_EXECUTION) and the answer is `submitResult(call, { choice } | { choices } | { text })`,
// checked against the question (INVALID_INPUT otherwise, nothing recorded). Works at any depth of a tree.
import { z } from 'zod'
import { AgentError, describe } from '../core/errors.js'
import type { ToolCallBlock } from '../core/messages.js'
import { defineTool, type Tool } from './tools.js'

export const ASK_USER_TOOL = 'ask_user'

export const AskUserInputSchema = z.object({
  question: z.string().min(1).describe('The question, in a sentence the user can answer.'),
  choices: z.array(z.string().min(1)).min(1).optional().describe('The answers to choose from, if any.'),
  multiple: z.boolean().optional().describe('With choices: the user may pick several.'),
  allowText: z.boolean().optional().describe('With choices: the user may also answer in their own words.'),
})
export type AskUserInput = z.infer<typeof AskUserInputSchema>

/** What the user answers: one of the choices, several (with `multiple`), or free text (without choices, or with `allowText`). */
export type AskUserAnswer = { choice: string } | { choices: string[] } | { text: string }

export interface AskUserOptions {
  /** What the model reads about the tool (a default explains it). */
  description?: string
}

/** The ask_user tool: add it to an agent's tools (`tools: [askUser()]`) to let the model ask the user. */
export const askUser = ({ description = 'Ask the user a question and wait for the answer. Give choices when the answer is one (or, with multiple, several) of a few options; allowText lets the user answer in their own words too.' }: AskUserOptions = {}): Tool =>
  defineTool({ name: ASK_USER_TOOL, description, input: AskUserInputSchema, external: true })

/** The question an ask_user call asks, or null when the call is not one (another tool, or arguments that are not a question). */
export const questionOf = (call: Pick<ToolCallBlock, 'name' | 'input'>): AskUserInput | null => {
  if (call.name !== ASK_USER_TOOL) return null
  try {
    const parsed = AskUserInputSchema.safeParse(JSON.parse(call.input || '{}'))
    return parsed.success ? parsed.data : null
  } catch {
    return null
  }
}

/** The output the model reads for `answer` to `question` (JSON of the answer), or INVALID_INPUT saying what is allowed. */
export const answerOutput = (question: AskUserInput, answer: unknown, callId: string): string => {
  const { choices, multiple = false, allowText = false } = question
  const allowed = [choices && !multiple && '{ choice }', choices && multiple && '{ choices }', (!choices || allowText) && '{ text }'].filter(Boolean).join(' or ')
  const refuse = (why: string): never => {
    throw new AgentError('INVALID_INPUT', `The answer to ask_user call ${callId} ${why}; answer with ${allowed}${choices ? ` (choices: ${choices.map((c) => JSON.stringify(c)).join(', ')})` : ''}.`)
  }
  if (typeof answer !== 'object' || answer === null || Array.isArray(answer) || Object.keys(answer).length !== 1) return refuse(`must be one of ${allowed}; received ${describe(answer)}`)
  const [[key, value]] = Object.entries(answer)
  if (key === 'text') {
    if (choices && !allowText) refuse('cannot be free text (the question has choices and no allowText)')
    if (typeof value !== 'string' || !value.trim()) refuse(`has a text that is not a non-empty string (${describe(value)})`)
  } else if (key === 'choice') {
    if (!choices || multiple) refuse(choices ? 'must pick with { choices } (the question allows several)' : 'cannot be a choice (the question has none)')
    if (typeof value !== 'string' || !choices!.includes(value)) refuse(`names ${describe(value)}, which is not one of the choices`)
  } else if (key === 'choices') {
    if (!choices || !multiple) refuse(choices ? 'must pick one with { choice }' : 'cannot be choices (the question has none)')
    if (!Array.isArray(value) || value.length === 0 || value.some((v) => typeof v !== 'string' || !choices!.includes(v)) || new Set(value).size !== value.length)
      refuse(`has choices ${describe(value)}, which are not distinct labels of the question's choices`)
  } else refuse(`has the key ${JSON.stringify(key)}`)
  return JSON.stringify({ [key]: value })
}
