// The demo's tools (`agentlog serve --scripted`, `agentlog chat --scripted --tools`), one per thing
// a person can do with a tool call: approve, deny or edit one that asks (send_email), answer one that
// runs outside the agent (pick_date, the page's result form), see an image result (draw_chart), watch
// a sub-agent report back (research, ../scriptedSubagent.ts), and stop a slow one (count_slowly). They touch nothing outside the process. Add a demo by adding its
// tool here and its step to DEMOS in ../scriptedChat.ts.
import { z } from 'zod'
import { sleep } from '../../core/abort.js'
import { defineTool, type Tool } from '../../agent/tools.js'
import { scriptedResearcher } from '../scriptedSubagent.js'
import { gradientPng } from './image.js'

export const sendEmail = defineTool({
  name: 'send_email', description: 'Sends an email (a demo: nothing leaves this machine). Asks the user first.',
  input: z.object({
    to: z.string().email().describe('The recipient\'s address'),
    subject: z.string().min(1).describe('The subject line'),
    body: z.string().describe('The message'),
  }),
  permission: 'ask',
  execute: ({ to, subject }) => `Sent "${subject}" to ${to} (a demo tool: no email left this machine).`,
})

export const pickDate = defineTool({
  name: 'pick_date', description: 'A person picks a date (an external tool: the agent waits for the result the person gives).',
  input: z.object({ purpose: z.string().describe('What the date is for') }),
  external: true,
})

export const drawChart = defineTool({
  name: 'draw_chart', description: 'Draws a chart and returns it as a PNG image.',
  input: z.object({ title: z.string() }), concurrencySafe: true,
  execute: ({ title }) => {
    const at = new Date().toISOString()
    return { output: [
      { type: 'text', id: 'chart-caption', text: `A chart: ${title}`, created_at: at, finished_at: at },
      { type: 'data', id: 'chart-png', source: { type: 'base64', media_type: 'image/png', data: gradientPng(96) }, created_at: at, finished_at: at },
    ] }
  },
})

export const countSlowly = defineTool({
  name: 'count_slowly', description: 'Counts to 120, one number every half second, streaming each (a slow tool to stop).',
  input: z.object({ to: z.number().int().min(1).max(120) }), concurrencySafe: true,
  execute: async function* ({ to }, { signal }) {
    for (let n = 1; n <= to; n++) {
      await sleep(500, signal)
      yield `${n}\n`
    }
  },
})

/** The demo tools every surface offers (the chat adds its own asking tool, run_command). */
export const demoTools = (): Tool[] => [sendEmail, pickDate, drawChart, scriptedResearcher(), countSlowly]
