// MCP tool results as agentlog tool results (pure): text -> text; image and audio -> base64 data
// blocks; an embedded resource -> its text (after its uri) or a base64 data block; a resource link
// -> a data block with a URL source; `structuredContent` -> the JSON as text unless a text block
// already carries it, and kept in the result's metadata; `isError: true` -> an `error` result.
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import type { DataBlock, TextBlock } from '../core/messages.js'
import type { ToolResultObject } from '../agent/tools.js'

type Block = TextBlock | DataBlock
type McpContent = CallToolResult['content'][number]

export const toToolResult = (result: Partial<CallToolResult>, tool_call_id: string): ToolResultObject => {
  const blocks: Block[] = []
  const text = (value: string) => blocks.push({ type: 'text', id: `${tool_call_id}-${blocks.length}`, text: value, created_at: '', finished_at: '' })
  const data = (source: DataBlock['source'], name: string | null = null) =>
    blocks.push({ type: 'data', id: `${tool_call_id}-${blocks.length}`, name, source, created_at: '', finished_at: '' })
  for (const item of (result.content ?? []) as McpContent[]) {
    switch (item.type) {
      case 'text':
        text(item.text)
        break
      case 'image':
      case 'audio':
        data({ type: 'base64', data: item.data, media_type: item.mimeType })
        break
      case 'resource': {
        const { resource } = item
        if ('text' in resource && typeof resource.text === 'string') text(`[resource ${resource.uri}]\n${resource.text}`)
        else if ('blob' in resource && typeof resource.blob === 'string') data({ type: 'base64', data: resource.blob, media_type: resource.mimeType ?? 'application/octet-stream' }, resource.uri)
        break
      }
      case 'resource_link':
        data({ type: 'url', url: item.uri, media_type: item.mimeType ?? 'application/octet-stream' }, item.name)
        break
      default:
        text(JSON.stringify(item))
    }
  }
  const metadata: Record<string, unknown> = {}
  if (result.structuredContent !== undefined) {
    const json = JSON.stringify(result.structuredContent)
    if (!blocks.some((b) => b.type === 'text' && sameJson(b.text, json))) text(json)
    metadata.structured_content = result.structuredContent
  }
  return { output: blocks, state: result.isError === true ? 'error' : 'success', metadata }
}

const sameJson = (text: string, json: string): boolean => {
  try {
    return JSON.stringify(JSON.parse(text)) === json
  } catch {
    return false
  }
}
