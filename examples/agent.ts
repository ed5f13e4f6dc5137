// The module `agentlog serve --agent FILE` loads. It exports `agent`: the options of a session's
// agent (createAgent's options without `log` and `session_id`, which the store gives), or a function
// of the session id returning them, as createHub's `agent` takes; `export default` works the same.
//   npx agentlog serve --agent ./agent.ts     (then open http://127.0.0.1:8787/)
// A .ts module needs tsx in its project (npm install --save-dev tsx); a .js or .mjs module needs nothing.
// expect: exports agent(session_id)
import { pathToFileURL } from 'node:url'
import { callTool, defineTool, say, scriptedModel, type AgentOptions } from 'agentlog'
import { z } from 'zod'

const deleteFile = defineTool({
  name: 'delete_file', description: 'Deletes a file', input: z.object({ path: z.string() }),
  permission: 'ask',
  execute: ({ path }) => `deleted ${path} (not really: an example)`,
})

export const agent = (session_id: string): Omit<AgentOptions, 'log' | 'session_id'> => ({
  name: 'Friday', sysPrompt: `You are helpful (session ${session_id}).`, tools: [deleteFile],
  model: scriptedModel([
    [...say('I will delete it; approve it first.'), ...callTool('call-1', 'delete_file', { path: '/tmp/a.txt' })],
    [...say('Done.')],
  ], { onExhausted: 'repeat-last' }),
})

if (import.meta.url === pathToFileURL(process.argv[1]).href)
  console.log(`This module exports agent(session_id), e.g. ${agent('demo').name}: serve it with npx agentlog serve --agent ${process.argv[1]}`)
