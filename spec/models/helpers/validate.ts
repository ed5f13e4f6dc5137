// Validators written from the providers' documented rules for a request's messages. Each returns
// the list of broken rules (empty when the request is valid), so a spec can show what failed.

const isObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value)

/**
 * OpenAI Chat Completions: every assistant tool call is answered by a `tool` message (same id)
 * before the next non-tool message; a `tool` message answers a call of the assistant message it
 * follows; arguments are a JSON object; an assistant message has content or tool calls.
 */
export const openAIProblems = (messages: any[]): string[] => {
  const problems: string[] = []
  let open = new Set<string>()
  let answerable = new Set<string>()
  messages.forEach((message, i) => {
    if (!['system', 'user', 'assistant', 'tool'].includes(message.role)) problems.push(`#${i}: unknown role ${message.role}`)
    if (message.role !== 'tool') {
      if (open.size) problems.push(`#${i}: ${message.role} message before tool results for ${[...open].join(', ')}`)
      open = new Set()
      answerable = new Set()
    }
    if (message.role === 'assistant') {
      const calls: any[] = message.tool_calls ?? []
      if (!calls.length && !(typeof message.content === 'string' && message.content)) problems.push(`#${i}: assistant without content or tool calls`)
      for (const toolCall of calls) {
        if (toolCall.type !== 'function' || typeof toolCall.function?.name !== 'string') problems.push(`#${i}: malformed tool call`)
        let args: unknown
        try { args = JSON.parse(toolCall.function.arguments) } catch { problems.push(`#${i}: arguments of ${toolCall.id} are not JSON`) }
        if (args !== undefined && !isObject(args)) problems.push(`#${i}: arguments of ${toolCall.id} are not an object`)
        if (answerable.has(toolCall.id)) problems.push(`#${i}: duplicate tool call id ${toolCall.id}`)
        open.add(toolCall.id)
        answerable.add(toolCall.id)
      }
    }
    if (message.role === 'tool') {
      if (!answerable.has(message.tool_call_id)) problems.push(`#${i}: tool message for ${message.tool_call_id} answers no call of the assistant message before it`)
      else if (!open.delete(message.tool_call_id)) problems.push(`#${i}: second tool message for ${message.tool_call_id}`)
      if (typeof message.content !== 'string') problems.push(`#${i}: tool content is not a string`)
    }
  })
  if (open.size) problems.push(`end: no tool results for ${[...open].join(', ')}`)
  return problems
}

/**
 * Anthropic Messages: roles alternate starting with user; content is a non-empty list of blocks;
 * text is not blank; each tool_use is answered by a tool_result in the immediately following user
 * message; tool_result blocks come first there and answer a tool_use of the message before; tool
 * input is an object; thinking blocks carry a signature; `system` is a string when present.
 */
export const anthropicProblems = (request: { system?: unknown; messages: any[] }): string[] => {
  const problems: string[] = []
  const { messages } = request
  if (request.system !== undefined && typeof request.system !== 'string') problems.push('system is not a string')
  if (messages[0]?.role !== 'user') problems.push('the first message is not a user message')
  messages.forEach((message, i) => {
    if (i > 0 && messages[i - 1].role === message.role) problems.push(`#${i}: two ${message.role} messages in a row`)
    if (!Array.isArray(message.content) || !message.content.length) problems.push(`#${i}: empty content`)
    const blocks: any[] = message.content ?? []
    for (const block of blocks) {
      if (block.type === 'text' && !String(block.text).trim()) problems.push(`#${i}: blank text block`)
      if (block.type === 'thinking' && (typeof block.signature !== 'string' || !block.signature)) problems.push(`#${i}: thinking without signature`)
      if (block.type === 'tool_use' && !isObject(block.input)) problems.push(`#${i}: input of ${block.id} is not an object`)
      if ((block.type === 'tool_use' || block.type === 'thinking') && message.role !== 'assistant') problems.push(`#${i}: ${block.type} in a user message`)
      if (block.type === 'tool_result' && message.role !== 'user') problems.push(`#${i}: tool_result in an assistant message`)
    }
    const firstOther = blocks.findIndex((block) => block.type !== 'tool_result')
    if (firstOther >= 0 && blocks.slice(firstOther).some((block) => block.type === 'tool_result')) problems.push(`#${i}: tool_result after other content`)
    const previous: any[] = messages[i - 1]?.content ?? []
    const asked = new Set(previous.filter((block) => block.type === 'tool_use').map((block) => block.id))
    for (const block of blocks.filter((block) => block.type === 'tool_result')) {
      if (!asked.has(block.tool_use_id)) problems.push(`#${i}: tool_result ${block.tool_use_id} answers no tool_use of the message before`)
      asked.delete(block.tool_use_id)
    }
    if (message.role === 'user' && asked.size) problems.push(`#${i}: no tool_result for ${[...asked].join(', ')}`)
    if (message.role === 'assistant' && i === messages.length - 1 && blocks.some((block) => block.type === 'tool_use')) problems.push(`end: no tool_result for the last tool_use blocks`)
  })
  return problems
}
