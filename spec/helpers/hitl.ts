// Human-in-the-loop fixtures: tools that ask for confirmation, run externally, or both.
import { z } from 'zod'
import { defineTool, type Tool } from '../../lib/index.js'
import type { ToolProbe } from './fixtures.js'

export const askingTool = (p: ToolProbe, { name = 'delete_file', safe = false } = {}): Tool =>
  defineTool({
    name, description: 'Deletes a file', input: z.object({ path: z.string() }), permission: 'ask', concurrencySafe: safe,
    execute: async ({ path }, { tool_call_id }) => {
      p.started.push({ id: tool_call_id, at: Date.now() })
      return `deleted ${path}`
    },
  })

export const externalTool = ({ name = 'browser', ask = false, safe = false } = {}): Tool =>
  defineTool({
    name, description: 'Runs in the browser', input: z.object({ url: z.string() }), external: true,
    permission: ask ? 'ask' : 'allow', concurrencySafe: safe,
  })
